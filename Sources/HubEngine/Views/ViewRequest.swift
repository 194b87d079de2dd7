import HubModel
import HubPrimitives

/// The read-only view of a client request that the engine and operations see: no HTTP types.
public struct ViewRequest: Sendable {
    /// The view URI as the client sent it (query and fragment included).
    public let viewURI: String
    /// Request headers the engine passes on, in order, names as received. The trace context
    /// (`traceparent`, `tracestate`) is not among them: it is ``trace``'s, and ``header(_:)``
    /// reads it from there.
    public let headers: [(name: String, value: String)]
    /// This request's W3C trace context, made when first read; nil when the caller gave none.
    public let trace: (any RequestTrace)?
    /// Connectivity the client reported (default online).
    public let connectivity: Connectivity
    /// Preferred languages from `Accept-Language`, most preferred first.
    public let languages: [String]
    /// The request's locale as the server negotiated it (`server.json` `locales`: `Hub-Locale`,
    /// else a lookup over `Accept-Language`, else the default), one of the supported tags as
    /// configured (`"de"`, `"fr-CA"`); `nil` when no locales are configured. A session keeps the
    /// locale it was opened with. Content that depends on the language should read this, not
    /// ``languages``: the chain memo and the caches key on it, a bounded set.
    public let locale: String?
    /// `Hub-Client: <platform>/<version>`.
    public let client: String?
    /// Components the client renders (`Hub-Components`); `nil` when it did not say.
    public let clientComponents: Set<ComponentIdentifier>?
    /// The verified user the request comes from; `nil`: anonymous.
    public let user: HubUser?

    public init(
        viewURI: String, headers: [(name: String, value: String)] = [], connectivity: Connectivity = .online,
        languages: [String] = [], client: String? = nil, clientComponents: Set<ComponentIdentifier>? = nil,
        trace: (any RequestTrace)? = nil, user: HubUser? = nil, locale: String? = nil
    ) {
        self.viewURI = viewURI
        self.locale = locale
        self.headers = headers
        self.trace = trace
        self.connectivity = connectivity
        self.languages = languages
        self.client = client
        self.clientComponents = clientComponents
        self.user = user
    }

    /// The first value of a header, compared case-insensitively; `traceparent` and `tracestate`
    /// come from ``trace`` when there is one (reading them may start the trace).
    public func header(_ name: String) -> String? {
        if let trace, name.utf8.count >= 10 {
            if name.asciiCaseInsensitiveEquals("traceparent") { return trace.trace.parent }
            if name.asciiCaseInsensitiveEquals("tracestate") { return trace.trace.state }
        }
        return headers.first { $0.name.asciiCaseInsensitiveEquals(name) }?.value
    }

    /// The view URI without its query and fragment.
    public var viewURIWithoutQuery: String { ViewURI.stripQueryAndFragment(viewURI) }

    /// The view URI's query parameters, in order, percent-decoded.
    public var queryItems: [(name: String, value: String)] { ViewURI.queryItems(of: viewURI) }

    /// The first value of a query parameter of the view URI.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// A copy for another user (a bound session's stream reads as its user).
    public func with(user: HubUser?) -> ViewRequest {
        ViewRequest(
            viewURI: viewURI, headers: headers, connectivity: connectivity, languages: languages, client: client,
            clientComponents: clientComponents, trace: trace, user: user, locale: locale)
    }

    /// A copy with another negotiated locale (a session keeps the one it was opened with).
    public func with(locale: String?) -> ViewRequest {
        ViewRequest(
            viewURI: viewURI, headers: headers, connectivity: connectivity, languages: languages, client: client,
            clientComponents: clientComponents, trace: trace, user: user, locale: locale)
    }

    /// The languages content is chosen for, most preferred first: the negotiated ``locale``
    /// alone when there is one, else ``languages`` (feature titles read this).
    public var contentLanguages: [String] { locale.map { [$0] } ?? languages }

    /// A copy for another view URI (the same client, headers, trace and connectivity).
    public func with(viewURI: String) -> ViewRequest {
        ViewRequest(
            viewURI: viewURI, headers: headers, connectivity: connectivity, languages: languages, client: client,
            clientComponents: clientComponents, trace: trace, user: user, locale: locale)
    }
}

extension ViewRequest {
    /// About the heap bytes this request holds while a session keeps it (``MemoryEstimate``):
    /// its retained header strings and their list, the view URI, languages, client name and
    /// component set. Counted in the session's estimate (``ViewSession/retainedBytesEstimate``),
    /// so that large retained headers engage `sessions.maxBytes`.
    public var retainedBytes: Int {
        var total = MemoryEstimate.bytes(of: viewURI) + MemoryEstimate.bytes(of: client) + MemoryEstimate.bytes(of: locale)
        total += MemoryEstimate.array(count: headers.count, stride: 32)
        for (name, value) in headers { total += MemoryEstimate.bytes(of: name) + MemoryEstimate.bytes(of: value) }
        total += MemoryEstimate.array(count: languages.count, stride: 16)
        for language in languages { total += MemoryEstimate.bytes(of: language) }
        if let clientComponents { total += MemoryEstimate.allocated(32 + clientComponents.count * 48) }
        if let user {
            total += MemoryEstimate.bytes(of: user.subject) + MemoryEstimate.bytes(of: user.digest) + MemoryEstimate.bytes(of: user.stateName)
            for (name, value) in user.claims { total += MemoryEstimate.bytes(of: name) + MemoryEstimate.bytes(of: value) }
            for (name, values) in user.accessClaims {
                total += MemoryEstimate.bytes(of: name)
                for value in values { total += MemoryEstimate.bytes(of: value) }
            }
        }
        return total
    }
}
