/// Routes requests by method and path template, built once then used as an immutable value.
///
/// ```swift
/// var router = Router()
/// router.add(.get, "/view") { request, context in .json(bytes) }
/// // Answered without a task when `cached` has it; else the work runs in a task.
/// router.add(.get, "/page", answer: { request, _ in cached(request).map { .now($0) } ?? .later { try await render(request) } })
/// router.add(.get, "/items/{id}", ItemEndpoint())
/// let responder = router.wrapped(in: [ErrorMiddleware(), RepresentationMiddleware()])
/// ```
/// An unknown path throws a 404 `route_not_found`; a known path with another method throws a 405
/// `method_not_allowed` with `Allow`; a method outside RFC 9110's (and PATCH, QUERY) is 501
/// `method_not_implemented`. HEAD is served by the GET route (the server drops the body).
/// The matched template and parameters are recorded on the ``RequestContext``.
public struct Router: HTTPResponder {
    private enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    /// One path template and its handlers. A class (built once, then only read): the router
    /// reads it per request without copying its fields.
    private final class Route: Sendable {
        let template: String
        let segments: [Segment]
        /// The methods in registration order, and each one's responder at the same position; a
        /// route has a handful, so a scan beats hashing the method.
        let methods: [HTTPMethod]
        let responders: [ResponderHook]

        init(template: String, segments: [Segment], methods: [HTTPMethod], responders: [ResponderHook]) {
            self.template = template
            self.segments = segments
            self.methods = methods
            self.responders = responders
        }

        /// The responder of `method`, HEAD answered by GET's; unretained (the route owns it, and
        /// the router its routes: ``ResponderHook`` says why).
        func responder(for method: HTTPMethod) -> Unmanaged<ResponderHook>? {
            if let index = methods.firstIndex(of: method) { return .passUnretained(responders[index]) }
            guard method == .head, let index = methods.firstIndex(of: .get) else { return nil }
            return .passUnretained(responders[index])
        }
    }

    private var routes: [Route] = []
    private var staticIndex: [String: Int] = [:]
    private var dynamicRoutes: [Int] = []

    public init() {}

    /// Adds `responder` for `method` on `path`; `{name}` segments capture one path segment.
    /// Registering the same method and template twice is a programming error (traps at start-up).
    public mutating func add(_ method: HTTPMethod, _ path: String, _ responder: any HTTPResponder) {
        let segments = Self.split(path).map { part -> Segment in
            if part.hasPrefix("{"), part.hasSuffix("}"), part.count > 2 {
                return .parameter(String(part.dropFirst().dropLast()))
            }
            return .literal(String(part))
        }
        if let index = routes.firstIndex(where: { $0.segments == segments }) {
            let route = routes[index]
            precondition(!route.methods.contains(method), "duplicate route \(method) \(path)")
            routes[index] = Route(
                template: route.template, segments: route.segments, methods: route.methods + [method],
                responders: route.responders + [responder.hook])
            return
        }
        routes.append(Route(template: path, segments: segments, methods: [method], responders: [responder.hook]))
        let isStatic = segments.allSatisfy { if case .literal = $0 { true } else { false } }
        if isStatic {
            staticIndex[path] = routes.count - 1
        } else {
            dynamicRoutes.append(routes.count - 1)
        }
    }

    /// Adds an asynchronous closure for `method` on `path`: its response is made in a task.
    public mutating func add(
        _ method: HTTPMethod, _ path: String,
        _ handler: nonisolated(nonsending) @escaping @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse
    ) {
        add(method, path, ClosureResponder(handler))
    }

    /// Adds a closure for `method` on `path` that answers now or later (``HTTPAnswer``).
    public mutating func add(
        _ method: HTTPMethod, _ path: String, answer: @escaping @Sendable (HTTPRequest, RequestContext) throws -> HTTPAnswer
    ) {
        add(method, path, ClosureResponder(answer: answer))
    }

    /// The matched route's handler's answer. Unknown paths throw 404, known paths without the
    /// method 405, unknown methods 501.
    public func answer(to request: HTTPRequest, context: RequestContext) throws -> HTTPAnswer {
        try Self.checkImplemented(request.method)
        var allowed: Set<HTTPMethod> = []
        if let index = staticIndex[request.path], let handler = handler(of: routes[index], for: request.method, allowed: &allowed) {
            context.setRoute(template: routes[index].template, parameters: [:])
            return try handler._withUnsafeGuaranteedRef { try $0.answer(to: request, context: context) }
        }
        if !dynamicRoutes.isEmpty {
            let parts = Self.split(request.path)
            for index in dynamicRoutes {
                guard let parameters = Self.match(routes[index].segments, parts),
                    let handler = handler(of: routes[index], for: request.method, allowed: &allowed)
                else { continue }
                context.setRoute(template: routes[index].template, parameters: parameters)
                return try handler._withUnsafeGuaranteedRef { try $0.answer(to: request, context: context) }
            }
        }
        throw Self.unmatched(request, allowed: allowed)
    }

    /// RFC 9110 section 9.1: a method the server does not implement at all is 501 (method names
    /// are case-sensitive: `get` is not GET); 405 is for known methods a route lacks.
    private static func checkImplemented(_ method: HTTPMethod) throws {
        guard method.isKnown else {
            throw HTTPError(
                .notImplemented, code: "method_not_implemented",
                detail: "The method is not implemented by this server.")
        }
    }

    /// 404 when no route matched the path, else 405 with `Allow`.
    private static func unmatched(_ request: HTTPRequest, allowed: Set<HTTPMethod>) -> HTTPError {
        if allowed.isEmpty {
            return HTTPError(.notFound, code: "route_not_found", detail: "No resource at this path.")
        }
        var allowed = allowed
        if allowed.contains(.get) { allowed.insert(.head) }
        let allow = allowed.map(\.rawValue).sorted().joined(separator: ", ")
        return HTTPError(
            .methodNotAllowed, code: "method_not_allowed",
            detail: "\(request.method.rawValue) is not allowed here; allowed: \(allow).", headers: ["Allow": allow]
        )
    }

    /// Every registered route: its template and methods (HEAD is implied by GET and not listed),
    /// in registration order; what a contract test compares with the API document.
    public var registeredRoutes: [(template: String, methods: Set<HTTPMethod>)] {
        routes.map { ($0.template, Set($0.methods)) }
    }

    /// The template and methods of the route `path` matches (HEAD included with GET), or nil
    /// when no route matches; what a CORS preflight answers in `Access-Control-Allow-Methods`.
    public func route(for path: String) -> (template: String, methods: Set<HTTPMethod>)? {
        var index = staticIndex[path]
        if index == nil, !dynamicRoutes.isEmpty {
            let parts = Self.split(path)
            index = dynamicRoutes.first { Self.match(routes[$0].segments, parts) != nil }
        }
        guard let index else { return nil }
        var methods = Set(routes[index].methods)
        if methods.contains(.get) { methods.insert(.head) }
        return (routes[index].template, methods)
    }

    /// The route's handler for `method` (HEAD by GET's); `nil`, with the route's methods added
    /// to `allowed`, when it has none.
    private func handler(of route: Route, for method: HTTPMethod, allowed: inout Set<HTTPMethod>) -> Unmanaged<ResponderHook>? {
        if let responder = route.responder(for: method) { return responder }
        allowed.formUnion(route.methods)
        return nil
    }

    private static func split(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { $0 }
    }

    private static func match(_ segments: [Segment], _ parts: [Substring]) -> [String: String]? {
        guard segments.count == parts.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let literal):
                guard literal == part else { return nil }
            case .parameter(let name):
                guard !part.isEmpty else { return nil }
                parameters[name] = String(part)
            }
        }
        return parameters
    }
}
