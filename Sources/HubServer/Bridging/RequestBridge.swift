import HubEngine
import HubHTTP
import HubModel
import HubPrimitives

/// Turns HTTP requests into what the engine reads (docs/API.md "Request headers the engine
/// reads"); the engine never sees an HTTP type. Only the headers of ``RetainedHeaders`` cross.
struct RequestBridge: Sendable {
    let retained: RetainedHeaders
    /// The tags of recent `Accept-Language` headers (``languages(_:)``), by their text.
    let languageLists = ParsedHeaders(RequestBridge.languages)

    /// What the engine reads of `request` for `viewURI`; `components`: the request's
    /// `Hub-Components`, read once by the endpoint (``ClientComponents``). The request's trace is
    /// `context`'s, this server's span (``TraceContextMiddleware``), not the client's headers.
    func viewRequest(
        viewURI: String, from request: HTTPRequest, context: RequestContext, components: ClientComponents?
    ) -> ViewRequest {
        let connectivity: Connectivity =
            request.headers["Hub-Connectivity"].map { $0.trimmingOWS().lowercased() == "offline" ? .offline : .online } ?? .online
        return ViewRequest(
            viewURI: viewURI, headers: retained.filter(request.headers), connectivity: connectivity,
            languages: languageLists.parsed(field: "Accept-Language", of: request.headers) ?? [],
            client: request.headers["Hub-Client"].flatMap { $0.utf8.count <= RetainedHeaders.maximumValueBytes ? $0 : nil },
            clientComponents: components?.identifiers, trace: context)
    }

    /// `Accept-Language` tags by descending q-value (q=0 dropped), `*` ignored; at most
    /// ``maximumLanguages`` tags of at most 64 bytes each (RFC 5646 tags are far shorter).
    static func languages(_ header: String) -> [String] {
        var tags: [String] = []
        for element in WeightedList(header).preferred where element.value != "*" && element.value.utf8.count <= 64 {
            tags.append(String(element.value))
            if tags.count == maximumLanguages { break }
        }
        return tags
    }

    /// Languages a request keeps (operations rarely look past the first few).
    static let maximumLanguages = 8

}
