import HubModel
import HubPrimitives

/// The read-only view of a client request that the engine and operations see: no HTTP types.
public struct ViewRequest: Sendable {
    /// The view URI as the client sent it (query and fragment included).
    public let viewURI: String
    /// Request headers the engine passes on, in order, names as received.
    public let headers: [(name: String, value: String)]
    /// Connectivity the client reported (default online).
    public let connectivity: Connectivity
    /// Preferred languages from `Accept-Language`, most preferred first.
    public let languages: [String]
    /// `Hub-Client: <platform>/<version>`.
    public let client: String?
    /// Components the client renders (`Hub-Components`); `nil` when it did not say.
    public let clientComponents: Set<ComponentIdentifier>?

    public init(
        viewURI: String, headers: [(name: String, value: String)] = [], connectivity: Connectivity = .online,
        languages: [String] = [], client: String? = nil, clientComponents: Set<ComponentIdentifier>? = nil
    ) {
        self.viewURI = viewURI
        self.headers = headers
        self.connectivity = connectivity
        self.languages = languages
        self.client = client
        self.clientComponents = clientComponents
    }

    /// The first value of a header, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.asciiCaseInsensitiveEquals(name) }?.value
    }

    /// The view URI without its query and fragment.
    public var viewURIWithoutQuery: String { ViewURI.stripQueryAndFragment(viewURI) }

    /// The view URI's query parameters, in order, percent-decoded.
    public var queryItems: [(name: String, value: String)] { ViewURI.queryItems(of: viewURI) }

    /// The first value of a query parameter of the view URI.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// A copy for another view URI (the same client, headers and connectivity).
    public func with(viewURI: String) -> ViewRequest {
        ViewRequest(
            viewURI: viewURI, headers: headers, connectivity: connectivity, languages: languages, client: client,
            clientComponents: clientComponents)
    }
}
