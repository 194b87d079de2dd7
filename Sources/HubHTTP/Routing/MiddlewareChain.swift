/// A handler wrapped in middleware (the first outermost), each hook run once per request, as
/// SwiftNIO's `ChannelPipeline` runs its handlers: the before-hooks outermost first, then the
/// handler; on its response the after-hooks innermost first; on an error the error hooks
/// innermost first, the first that answers handing its response to the after-hooks outside it.
///
/// A handler that answers now is answered now, through every hook, without a task; for a
/// `later` answer the chain answers `later` too, and the after- or error-hooks run when the
/// work resolves. No middleware can make a `now` answer `later`.
public struct MiddlewareChain: HTTPResponder {
    /// Outermost first.
    public let middleware: [any HTTPMiddleware]
    public let handler: any HTTPResponder
    /// `middleware` and `handler` each behind a class reference, what the hooks are called on:
    /// a call on an element of `[any HTTPMiddleware]` copied the existential out of the array,
    /// projected its box and destroyed the copy, twice per middleware on every request. Called
    /// through `Unmanaged` (owned by `boxes`), without a retain and a release per call.
    private let hooks: [Unmanaged<MiddlewareHooks>]
    private let inner: Unmanaged<ResponderHook>
    private let boxes: (hooks: [MiddlewareHooks], inner: ResponderHook)

    public init(_ middleware: [any HTTPMiddleware], handler: any HTTPResponder) {
        self.middleware = middleware
        self.handler = handler
        boxes = (middleware.map { Self.hooks(of: $0) }, handler.hook)
        hooks = boxes.hooks.map { Unmanaged.passUnretained($0) }
        inner = Unmanaged.passUnretained(boxes.inner)
    }

    private static func hooks(of middleware: some HTTPMiddleware) -> MiddlewareHooks { HookBox(middleware) }

    public func answer(to request: HTTPRequest, context: RequestContext) throws -> HTTPAnswer {
        for index in hooks.indices {
            let early: HTTPResponse?
            do {
                early = try hooks[index]._withUnsafeGuaranteedRef { try $0.before(request, context: context) }
            } catch {
                return .now(try recover(from: error, outside: index, request, context))
            }
            if let early { return .now(finish(early, outside: index, request, context)) }
        }
        let answer: HTTPAnswer
        do {
            answer = try inner._withUnsafeGuaranteedRef { try $0.answer(to: request, context: context) }
        } catch {
            return .now(try recover(from: error, outside: hooks.count, request, context))
        }
        // Consumed: the response bound below is then the only reference to its headers, and a
        // hook that adds one changes them in place instead of copying them.
        switch consume answer {
        case .now(let response):
            return .now(finish(response, outside: hooks.count, request, context))
        case .later(let work):
            return .later { [self] in
                let response: HTTPResponse
                do {
                    response = try await work()
                } catch {
                    return try recover(from: error, outside: hooks.count, request, context)
                }
                return finish(response, outside: hooks.count, request, context)
            }
        }
    }

    /// The after-hooks of the middleware before `level` (outside it), innermost first.
    /// The response is consumed and handed on (`consume`): each hook owns it alone, so one that
    /// changes its headers changes them in place rather than copying them.
    private func finish(_ response: consuming HTTPResponse, outside level: Int, _ request: HTTPRequest, _ context: RequestContext) -> HTTPResponse {
        var response = response
        var index = level
        while index > 0 {
            index -= 1
            response = hooks[index]._withUnsafeGuaranteedRef { $0.after(response, to: request, context: context) }
        }
        return response
    }

    /// The error hooks of the middleware outside `level`, innermost first, until one answers.
    private func recover(
        from error: any Error, outside level: Int, _ request: HTTPRequest, _ context: RequestContext
    ) throws -> HTTPResponse {
        var error = error
        var index = level
        while index > 0 {
            index -= 1
            do {
                let response = try hooks[index]._withUnsafeGuaranteedRef { try $0.failed(error, request: request, context: context) }
                return finish(response, outside: index, request, context)
            } catch let next {
                error = next
            }
        }
        throw error
    }
}

/// A middleware's hooks called through a class reference (``MiddlewareChain``), a class for the
/// reason ``ResponderHook`` is; ``HookBox`` is the one kind. `@unchecked Sendable` because a
/// non-final class cannot be checked: this one stores nothing.
private class MiddlewareHooks: @unchecked Sendable {
    func before(_ request: HTTPRequest, context: RequestContext) throws -> HTTPResponse? { preconditionFailure("a HookBox") }
    func after(_ response: consuming HTTPResponse, to request: HTTPRequest, context: RequestContext) -> HTTPResponse {
        preconditionFailure("a HookBox")
    }
    func failed(_ error: any Error, request: HTTPRequest, context: RequestContext) throws -> HTTPResponse {
        preconditionFailure("a HookBox")
    }
}

/// `@unchecked Sendable` (restated from ``MiddlewareHooks``): its one stored property is a `let`
/// of a `Sendable` middleware.
private final class HookBox<Middleware: HTTPMiddleware>: MiddlewareHooks, @unchecked Sendable {
    let middleware: Middleware

    init(_ middleware: Middleware) { self.middleware = middleware }

    override func before(_ request: HTTPRequest, context: RequestContext) throws -> HTTPResponse? {
        try middleware.before(request, context: context)
    }

    override func after(_ response: consuming HTTPResponse, to request: HTTPRequest, context: RequestContext) -> HTTPResponse {
        middleware.after(response, to: request, context: context)
    }

    override func failed(_ error: any Error, request: HTTPRequest, context: RequestContext) throws -> HTTPResponse {
        try middleware.failed(error, request: request, context: context)
    }
}

extension HTTPResponder {
    /// This responder wrapped in `middleware`, the first element outermost:
    /// `router.wrapped(in: [ErrorMiddleware(), RequestIDMiddleware(), RepresentationMiddleware()])`.
    public func wrapped(in middleware: [any HTTPMiddleware]) -> MiddlewareChain {
        MiddlewareChain(middleware, handler: self)
    }
}
