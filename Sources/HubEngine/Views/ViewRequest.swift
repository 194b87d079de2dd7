import HubModel
import HubPrimitives

/// The read-only view of a client request that the engine and operations see: no HTTP types.
///
/// Its fields live in one shared, immutable box: a session keeps its latest request, and its
/// settled view (read without the actor) keeps the same one, so a copy costs a reference, not
/// the fields' 160 bytes again (memory per held session).
public struct ViewRequest: Sendable {
    private final class Fields: Sendable {
        let viewURI: String
        let headers: [(name: String, value: String)]
        let trace: (any RequestTrace)?
        let connectivity: Connectivity
        let languages: [String]
        let locale: String?
        let client: String?
        let clientComponents: Set<ComponentIdentifier>?
        let user: HubUser?

        init(
            viewURI: String, headers: [(name: String, value: String)], trace: (any RequestTrace)?, connectivity: Connectivity,
            languages: [String], locale: String?, client: String?, clientComponents: Set<ComponentIdentifier>?, user: HubUser?
        ) {
            self.viewURI = viewURI
            self.headers = headers
            self.trace = trace
            self.connectivity = connectivity
            self.languages = languages
            self.locale = locale
            self.client = client
            self.clientComponents = clientComponents
            self.user = user
        }
    }

    private let fields: Fields

    /// The view URI as the client sent it (query and fragment included).
    public var viewURI: String { fields.viewURI }
    /// Request headers the engine passes on, names as received, ordered by name (ASCII
    /// case-insensitively); fields of one name keep the order they were received in. Only that
    /// order carries meaning (RFC 9110 section 5.3), so two requests that differ only in the
    /// order of their fields are the same client request (``sameClientRequest(as:)``, the chain
    /// memo, a held session's settled view). The trace context (`traceparent`, `tracestate`) is
    /// not among them: it is ``trace``'s, and ``header(_:)`` reads it from there.
    public var headers: [(name: String, value: String)] { fields.headers }
    /// This request's W3C trace context, made when first read; nil when the caller gave none.
    public var trace: (any RequestTrace)? { fields.trace }
    /// Connectivity the client reported (default online).
    public var connectivity: Connectivity { fields.connectivity }
    /// Preferred languages from `Accept-Language`, most preferred first.
    public var languages: [String] { fields.languages }
    /// The request's locale as the server negotiated it (`server.json` `locales`: `Hub-Locale`,
    /// else a lookup over `Accept-Language`, else the default), one of the supported tags as
    /// configured (`"de"`, `"fr-CA"`); `nil` when no locales are configured. A session keeps the
    /// locale it was opened with. Content that depends on the language should read this, not
    /// ``languages``: the chain memo and the caches key on it, a bounded set.
    public var locale: String? { fields.locale }
    /// `Hub-Client: <platform>/<version>`.
    public var client: String? { fields.client }
    /// Components the client renders (`Hub-Components`); `nil` when it did not say.
    public var clientComponents: Set<ComponentIdentifier>? { fields.clientComponents }
    /// The verified user the request comes from; `nil`: anonymous.
    public var user: HubUser? { fields.user }

    public init(
        viewURI: String, headers: [(name: String, value: String)] = [], connectivity: Connectivity = .online,
        languages: [String] = [], client: String? = nil, clientComponents: Set<ComponentIdentifier>? = nil,
        trace: (any RequestTrace)? = nil, user: HubUser? = nil, locale: String? = nil
    ) {
        fields = Fields(
            viewURI: viewURI, headers: Self.orderedByName(headers), trace: trace, connectivity: connectivity,
            languages: languages, locale: locale, client: client, clientComponents: clientComponents, user: user)
    }

    /// `headers` in the order ``headers`` keeps: by name, ASCII case-insensitively, fields of one
    /// name in the order given. Returned as given when already so (the usual one or two fields).
    static func orderedByName(_ headers: [(name: String, value: String)]) -> [(name: String, value: String)] {
        guard headers.count > 1,
            headers.indices.dropFirst().contains(where: { ASCII.caseInsensitivePrecedes(headers[$0].name, headers[$0 - 1].name) })
        else { return headers }
        // Insertion sort: stable (fields of one name keep their order), and a request keeps at
        // most a few dozen fields (``RetainedHeaders``).
        var ordered = headers
        for index in ordered.indices.dropFirst() {
            let field = ordered[index]
            var slot = index
            while slot > 0, ASCII.caseInsensitivePrecedes(field.name, ordered[slot - 1].name) {
                ordered[slot] = ordered[slot - 1]
                slot -= 1
            }
            ordered[slot] = field
        }
        return ordered
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

    /// Whether `other` is a copy of this very request (the same value passed on, not an equal
    /// one made apart): what a cache that keeps a request compares in one step.
    public func isCopy(of other: ViewRequest) -> Bool { fields === other.fields }

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

    /// A copy without ``trace``, for a session to keep once its run is over: the trace belongs to
    /// the request that made the run (a later run, an invalidation's or a reschedule's, is not
    /// part of it), and what carries it (HubServer's request context, with its route, its
    /// principal and the trace's strings) would otherwise live as long as the session.
    func withoutTrace() -> ViewRequest {
        guard trace != nil else { return self }
        return ViewRequest(
            viewURI: viewURI, headers: headers, connectivity: connectivity, languages: languages, client: client,
            clientComponents: clientComponents, trace: nil, user: user, locale: locale)
    }

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
