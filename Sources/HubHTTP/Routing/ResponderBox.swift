/// A responder called through a class reference: what a ``MiddlewareChain`` and a ``Router``
/// call on every request. A call on a stored `any HTTPResponder` (a struct such as the router,
/// or a closure responder) copied the existential, projected its box and destroyed the copy.
protocol ResponderHook: AnyObject, Sendable {
    func answer(to request: HTTPRequest, context: RequestContext) throws -> HTTPAnswer
}

/// ``ResponderHook`` over one responder of a known type.
final class ResponderBox<Responder: HTTPResponder>: ResponderHook {
    let responder: Responder

    init(_ responder: Responder) { self.responder = responder }

    func answer(to request: HTTPRequest, context: RequestContext) throws -> HTTPAnswer {
        try responder.answer(to: request, context: context)
    }
}

extension HTTPResponder {
    /// This responder behind a class reference (``ResponderHook``).
    var hook: any ResponderHook { ResponderBox(self) }
}
