import HubPrimitives

/// The Fetch standard's CORS protocol for a ``CORSPolicy``.
///
/// - A **preflight** (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) to a known
///   route is answered here with 204, `Access-Control-Allow-Methods` (the route's methods),
///   `Access-Control-Allow-Headers` (the requested headers the policy allows) and
///   `Access-Control-Max-Age`; the router never sees it, so routes without an OPTIONS handler
///   are covered. From an origin the policy does not allow it is 403 `cors_origin_not_allowed`
///   without CORS headers. A preflight to an unknown path goes on to the router (404).
/// - Any other request with an allowed `Origin` gets `Access-Control-Allow-Origin`,
///   `Access-Control-Expose-Headers` and, when allowed, `Access-Control-Allow-Credentials`.
///   A disallowed `Origin` gets no CORS headers (the browser withholds the response) and is
///   reported to `onRejected`; a same-origin request (`Origin` naming the `Host`) is not.
/// - `Vary: Origin` goes on every response whose CORS headers depend on `Origin`.
///
/// Place it outside ``ErrorMiddleware`` so that problem responses carry CORS headers too
/// and a script can read them.
public struct CORSMiddleware: HTTPMiddleware {
    /// What `onRejected` is told about.
    public enum Rejection: String, Sendable {
        /// A preflight from an origin the policy does not allow.
        case preflight
        /// Another request from an origin the policy does not allow.
        case request
    }

    public let policy: CORSPolicy
    private let routes: @Sendable (String) -> (template: String, methods: Set<HTTPMethod>)?
    private let onRejected: @Sendable (Rejection) -> Void

    /// - Parameters:
    ///   - routes: the template and methods of the route a path matches, nil for none
    ///     (``Router/route(for:)``).
    ///   - onRejected: called for each request from a disallowed origin (for a metric).
    public init(
        policy: CORSPolicy, routes: @escaping @Sendable (String) -> (template: String, methods: Set<HTTPMethod>)?,
        onRejected: @escaping @Sendable (Rejection) -> Void = { _ in }
    ) {
        self.policy = policy
        self.routes = routes
        self.onRejected = onRejected
    }

    /// A preflight of a known path is answered here.
    public func before(_ request: HTTPRequest, context: RequestContext) throws -> HTTPResponse? {
        guard let origin = request.headers["Origin"] else { return nil }
        return preflightResponse(request, origin: origin, context: context)
    }

    public func after(_ response: consuming HTTPResponse, to request: HTTPRequest, context: RequestContext) -> HTTPResponse {
        finish(response, origin: request.headers["Origin"], request: request)
    }

    /// The answer to a CORS preflight (`OPTIONS` with `Access-Control-Request-Method`) of a known
    /// path; `nil` for any other request.
    private func preflightResponse(_ request: HTTPRequest, origin: String, context: RequestContext) -> HTTPResponse? {
        guard request.method == .options, request.headers.contains("Access-Control-Request-Method") else { return nil }
        return preflight(request, origin: origin, context: context)
    }

    /// The response of a request that is not a preflight, with the CORS headers its origin gets.
    private func finish(_ response: HTTPResponse, origin: String?, request: HTTPRequest) -> HTTPResponse {
        var response = response
        if let origin {
            if let allowOrigin = policy.allowOrigin(for: origin) {
                response.headers.replaceOrAdd(name: "Access-Control-Allow-Origin", value: allowOrigin)
                if policy.allowCredentials {
                    response.headers.replaceOrAdd(name: "Access-Control-Allow-Credentials", value: "true")
                }
                if !policy.exposedHeaders.isEmpty {
                    response.headers.replaceOrAdd(
                        name: "Access-Control-Expose-Headers", value: policy.exposedHeaders.joined(separator: ", "))
                }
            } else if !Self.isSameOrigin(origin, host: request.headers["Host"]) {
                onRejected(.request)
            }
        }
        if policy.variesByOrigin { Self.addVary("Origin", to: &response.headers) }
        return response
    }

    /// The preflight answer, or nil when the path matches no route (the router answers 404).
    private func preflight(_ request: HTTPRequest, origin: String, context: RequestContext) -> HTTPResponse? {
        guard let route = routes(request.path) else { return nil }
        context.setRoute(template: route.template, parameters: [:])
        var response: HTTPResponse
        if let allowOrigin = policy.allowOrigin(for: origin) {
            response = HTTPResponse(status: .noContent)
            response.headers.add(name: "Access-Control-Allow-Origin", value: allowOrigin)
            if policy.allowCredentials { response.headers.add(name: "Access-Control-Allow-Credentials", value: "true") }
            let methods = route.methods.map(\.rawValue).sorted()
            response.headers.add(name: "Access-Control-Allow-Methods", value: methods.joined(separator: ", "))
            let requested = request.headers.values(for: "Access-Control-Request-Headers")
                .flatMap { $0.split(separator: ",") }
                .map { $0.trimmingOWS() }
                .filter { !$0.isEmpty && policy.allowsHeader($0) }
            if !requested.isEmpty {
                response.headers.add(name: "Access-Control-Allow-Headers", value: requested.joined(separator: ", "))
            }
            response.headers.add(name: "Access-Control-Max-Age", value: String(policy.maxAgeSeconds))
        } else {
            onRejected(.preflight)
            response = HTTPError(
                .forbidden, code: "cors_origin_not_allowed", detail: "This origin may not use the API from a browser."
            ).response
        }
        Self.addVary("Origin", to: &response.headers)
        Self.addVary("Access-Control-Request-Method", to: &response.headers)
        Self.addVary("Access-Control-Request-Headers", to: &response.headers)
        return response
    }

    /// Adds `token` to `Vary` unless it (or `*`) is already there.
    static func addVary(_ token: String, to headers: inout HTTPHeaders) {
        guard !headers.containsToken(token, in: "Vary"), !headers.containsToken("*", in: "Vary") else { return }
        if let existing = headers["Vary"], !existing.trimmingOWS().isEmpty {
            headers.replaceOrAdd(name: "Vary", value: "\(existing), \(token)")
        } else {
            headers.replaceOrAdd(name: "Vary", value: token)
        }
    }

    /// Whether `origin` names the host the request was sent to (a same-origin request, which
    /// browsers also send `Origin` with); the scheme is not known here, so only the authority counts.
    static func isSameOrigin(_ origin: String, host: String?) -> Bool {
        guard let host, let normalized = CORSPolicy.normalizedOrigin(origin),
            let (scheme, authority) = CORSPolicy.splitScheme(normalized)
        else { return false }
        let hostLower = host.lowercased()
        if authority == hostLower { return true }
        let defaultPort = scheme == "https" ? ":443" : scheme == "http" ? ":80" : nil
        if let defaultPort { return "\(authority)\(defaultPort)" == hostLower }
        return false
    }
}
