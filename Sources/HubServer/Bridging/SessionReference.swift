import HubEngine
import HubHTTP
import HubPrimitives

/// Which session token a request names. Every endpoint that takes a session reads it from
/// the `Hub-Session` request header (the routing key a load balancer hashes on: the same
/// name as the response header, so a client sends back what it got) or from its own
/// `session` (the query of `GET /view`, `GET /view/events`, `DELETE /view`; the JSON body of
/// `POST /action` and `POST /view/next-page`).
///
/// - Either alone names the session. An empty header counts as absent, and so does an empty
///   `session` next to a header.
/// - Both naming the same session (the same 22-character id) are fine; the header's is used
///   (a session has one token, so both are the same text unless one was altered, and an altered
///   one does not verify).
/// - Both naming different sessions (or one of them not a token) is 400 `session_mismatch`:
///   the balancer routed by the header, so the server must not quietly serve the other one.
/// - The header given twice is 400 `duplicate_parameter`, like a repeated `session`.
enum SessionReference {
    /// The request header that names a session.
    static var headerName: String { HubHeaderName.session }

    /// Where an endpoint's own `session` comes from, for the problem's detail.
    enum Source {
        case query
        case body

        var description: String {
            switch self {
            case .query: return "the 'session' query parameter"
            case .body: return "the 'session' field of the body"
            }
        }
    }

    /// The token `request` names, from `parameter` (the endpoint's own `session`, already read)
    /// and the `Hub-Session` header; `nil` when neither is given.
    static func token(_ parameter: String?, from source: Source, in request: HTTPRequest) throws -> String? {
        // The first value and whether there is a second, without an array of values (every
        // `GET /view` asks).
        var first: String?
        var count = 0
        request.headers.forEachValue(named: headerName) { value in
            count += 1
            if count == 1 { first = value }
            return count < 2
        }
        guard count <= 1 else {
            throw HTTPError(.badRequest, code: "duplicate_parameter", detail: "the '\(headerName)' header may be given only once")
        }
        guard let header = first?.trimmingOWS().description, !header.isEmpty else { return parameter }
        guard let parameter, !parameter.isEmpty, parameter != header else { return header }
        guard let headerID = SessionToken.identifier(of: header), headerID == SessionToken.identifier(of: parameter) else {
            throw HTTPError(
                .badRequest, code: "session_mismatch",
                detail: "the \(headerName) header and \(source.description) name different sessions; send the token once (the header is enough)")
        }
        return header
    }
}
