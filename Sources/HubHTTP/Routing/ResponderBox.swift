/// A responder called through a class reference: what a ``MiddlewareChain`` and a ``Router``
/// call on every request. A call on a stored `any HTTPResponder` (a struct such as the router,
/// or a closure responder) copied the existential, projected its box and destroyed the copy.
/// A class rather than a protocol so that its owner can call it through `Unmanaged`, without a
/// retain and a release per call (the chain and the router call their boxes on every request).
/// ``ResponderBox`` is the one kind; `@unchecked Sendable` because a non-final class cannot be
/// checked: this one stores nothing.
class ResponderHook: @unchecked Sendable {
    func answer(to request: HTTPRequest, context: RequestContext) throws -> HTTPAnswer {
        preconditionFailure("a ResponderBox answers")
    }
}

/// ``ResponderHook`` over one responder of a known type. `@unchecked Sendable` (restated from
/// ``ResponderHook``): its one stored property is a `let` of a `Sendable` responder.
final class ResponderBox<Responder: HTTPResponder>: ResponderHook, @unchecked Sendable {
    let responder: Responder

    init(_ responder: Responder) { self.responder = responder }

    override func answer(to request: HTTPRequest, context: RequestContext) throws -> HTTPAnswer {
        try responder.answer(to: request, context: context)
    }
}

extension HTTPResponder {
    /// This responder behind a class reference (``ResponderHook``).
    var hook: ResponderHook { ResponderBox(self) }
}
