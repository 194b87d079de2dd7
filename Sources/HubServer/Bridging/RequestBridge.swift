import HubEngine
import HubHTTP
import HubModel
import HubOperations
import HubPrimitives

/// Turns HTTP requests into what the engine reads (docs/API.md "Request headers the engine
/// reads"); the engine never sees an HTTP type. Only the headers of ``RetainedHeaders`` cross.
///
/// A class, immutable once made (a config reload installs a new one): an endpoint takes the
/// current one with one reference count, not one per field of a copied value.
final class RequestBridge: Sendable {
    let retained: RetainedHeaders
    /// Negotiates each request's locale (`server.json` `locales`); nil: none is negotiated.
    let locales: LocaleNegotiator?
    /// The tags of recent `Accept-Language` headers (``languages(_:)``), by their text.
    let languageLists = ParsedHeaders(RequestBridge.languages)
    /// The last request each thread found alike (``isSameClientRequest(viewURI:from:user:components:as:answerAlike:)``).
    let sameClients: SameClientMemo

    /// The engine's ``ViewEngine/definitionsInstalled`` when this bridge's config was installed:
    /// its rollout keys decide alike answers only while the engine's features are that config's
    /// (nil: never).
    let installed: Int?

    init(
        retained: RetainedHeaders, locales: LocaleNegotiator? = nil, installed: Int? = nil,
        sameClients: SameClientMemo = SameClientMemo()
    ) {
        self.retained = retained
        self.sameClients = sameClients
        self.installed = installed
        self.locales = locales
    }

    /// What the engine reads of `request` for `viewURI`; `components`: the request's
    /// `Hub-Components`, read once by the endpoint (``ClientComponents``). The request's trace is
    /// `context`'s, this server's span (``TraceContextMiddleware``), not the client's headers.
    func viewRequest(
        viewURI: String, from request: HTTPRequest, context: RequestContext, components: ClientComponents?
    ) -> ViewRequest {
        // Read once: each read of `request.headers` is an access (and a retain) of its own.
        let headers = request.headers
        return ViewRequest(
            viewURI: viewURI, headers: retained.filter(headers), connectivity: Self.connectivity(of: headers),
            languages: languageLists.parsed(field: "Accept-Language", of: headers) ?? [],
            client: Self.lastValue(of: "Hub-Client", in: headers).flatMap {
                $0.utf8.count <= RetainedHeaders.maximumClientBytes ? $0 : nil
            },
            clientComponents: components?.identifiers, trace: context, user: context.user,
            locale: locales?.locale(of: headers))
    }

    /// ``viewRequest(viewURI:from:context:components:)`` for any view URI, as the session door
    /// asks for it (a held session's load, a rebuild's first load).
    func viewRequests(
        from request: HTTPRequest, context: RequestContext, components: ClientComponents?
    ) -> @Sendable (String) -> ViewRequest {
        { [self] uri in viewRequest(viewURI: uri, from: request, context: context, components: components) }
    }

    /// Whether ``viewRequest(viewURI:from:context:components:)`` would make the same client
    /// request as `baseline` (``ViewRequest/sameClientRequest(as:)``), read in place: no request,
    /// header list or string is made. Says no when unsure (a value that is not valid UTF-8, or
    /// equal only as Unicode text), never yes when the request would differ: the bytes a request
    /// would keep are compared with the baseline's. The client, connectivity and kept fields are
    /// read in one pass (``SameClientFields``).
    ///
    /// `answerAlike`: yes also for a request that differs from the baseline only in the value of
    /// a field nothing but toggles reads, when that value puts it in the same rollout buckets
    /// (``RetainedHeaders/bucketKeys``): the chain's operations and memo key are the baseline's,
    /// so the memo's answer to it is too (`GET /view?uri=` for many apps). Not for a held session,
    /// which keeps its own client's request.
    func isSameClientRequest(
        viewURI: String, from request: HTTPRequest, user: HubUser?, components: ClientComponents?, as baseline: ViewRequest,
        answerAlike: Bool = false
    ) -> Bool {
        let headers = request.headers
        let memo = sameClients.answer(
            headers, viewURI: viewURI, user: user, components: components, baseline: baseline, answerAlike: answerAlike)
        guard case .unknown(let keep) = memo else { return true }
        guard baseline.viewURI == viewURI, baseline.user == user, baseline.clientComponents == components?.identifiers,
            baseline.languages == languageLists.parsed(field: "Accept-Language", of: headers) ?? [],
            baseline.locale == locales?.locale(of: headers)
        else { return false }
        let same =
            SameClientFields.compare(headers, with: baseline, retained: retained, answerAlike: answerAlike)
            // Kept fields at a per-request limit: the limits apply in the order received.
            ?? (baseline.connectivity == Self.connectivity(of: headers) && Self.lastClientIsKept(baseline.client, in: headers)
                && retained.keeps(headers, sameAs: baseline.headers))
        if same, keep {
            sameClients.remember(
                headers, viewURI: viewURI, user: user, components: components, baseline: baseline, answerAlike: answerAlike)
        }
        return same
    }

    /// The fingerprint of the fields the view request of `request` keeps
    /// (``ViewEngine/openView(viewURI:fingerprint:sameClient:request:)``); `answerAlike`: with
    /// the buckets a rollout key picks in place of its value, as
    /// ``isSameClientRequest(viewURI:from:user:components:as:answerAlike:)`` compares them (equal
    /// for requests it finds alike).
    func keptFieldsFingerprint(of request: HTTPRequest, answerAlike: Bool = false) -> KeptFieldsFingerprint {
        retained.fingerprint(of: request.headers, answerAlike: answerAlike)
    }

    /// Whether the last `Hub-Client` of `headers` is the one a view request with client `client` keeps.
    private static func lastClientIsKept(_ client: String?, in headers: HTTPHeaders) -> Bool {
        var last: Bool?
        headers.forEachFieldBytes { name, value in
            guard RetainedHeaders.serverHeader(name) == .client else { return }
            if let client {
                last = ASCII.withUTF8(of: client) { ASCII.bytesEqual($0, value) }
            } else {
                last = value.count > RetainedHeaders.maximumClientBytes
            }
        }
        return last ?? (client == nil)
    }

    /// `Hub-Connectivity: offline` (any case, OWS around it) is offline; anything else, or none, online.
    static func connectivity(of headers: HTTPHeaders) -> Connectivity {
        lastValue(of: "Hub-Connectivity", in: headers).map { $0.trimmingOWS().lowercased() == "offline" ? .offline : .online }
            ?? .online
    }

    /// The last value of the field `name` (the one a server header keeps, ``RetainedHeaders``).
    static func lastValue(of name: String, in headers: HTTPHeaders) -> String? {
        var last: String?
        headers.forEachValue(named: name) { value in
            last = value
            return true
        }
        return last
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
