import HubEngine
import HubModel
import HubUpstream

/// Serving last good content (RFC 5861): within `stale-if-error` a failed fetch (a 5xx, a
/// refused connection, a timeout, a broken or unreadable body) is answered with the content the
/// upstream last gave, and within `stale-while-revalidate` past freshness the content is served
/// at once while one background refresh (per URL, for every session) goes upstream. Sessions
/// answered stale reload when good content arrives again (a background retry looks for it
/// while such a session waits), and take that content for a second rather than each asking
/// the upstream again.
extension RemoteOperation {
    /// `hub:reload`: what a session answered stale performs when the content recovers.
    package static let reloadAction = ComponentIdentifier(namespace: ActionRegistry.builtInNamespace, name: "reload")

    /// The first and the longest pause between background retries of a failing upstream.
    package static let retryDelays: (first: Duration, longest: Duration) = (.seconds(1), .seconds(30))

    /// The fetch identity of the stale store: the URL (with the locale `sendLocale` sends), plus a
    /// SHA-256 of the forwarded caller headers (their values are never kept beside it). Nil for methods other than GET.
    package func staleKey(_ url: String, _ inputs: Inputs) -> String? {
        guard settings.definition.method == "GET" else { return nil }
        let fetched = fetchKey(url, locale: inputs.locale)
        guard !inputs.forwarded.isEmpty else { return fetched }
        return fetched + "\n" + ForwardedHeaders.fingerprint(inputs.forwarded)
    }

    /// Fetches and parses `url`, standing in last good content where the policy allows it.
    package func load(_ url: String, _ inputs: Inputs) async throws -> Loaded {
        let store = settings.services.stale
        let key = staleKey(url, inputs)
        if let key, let body = store.reusable(key) {
            return Loaded(value: try parse(body), staleAgeSeconds: nil)
        }
        if let key, let served = store.whileRevalidating(key) {
            store.wait(key, waiter: inputs.session)
            refreshInBackground(url, key: key, inputs: inputs, retrying: false)
            return Loaded(value: try parse(served.body), staleAgeSeconds: served.ageSeconds)
        }
        do {
            let response = try await fetch(url, inputs)
            let value = try parse(response.body)
            // Not kept when it varies on a header the fetch did not send (as the HTTP cache does not).
            if let key, VaryRule.allowsStoring(responseHeaders: response.headers, requestHeaders: requestHeaders(inputs)) {
                recordGood(key, response)
            }
            return Loaded(value: value, staleAgeSeconds: nil)
        } catch let error as UpstreamError where key != nil && Self.staleMayStandIn(for: error) {
            guard let key, let served = store.ifError(key, waiter: inputs.session) else { throw error }
            log(error, url: url, feature: inputs.feature, operation: inputs.operationIndex, page: 0,
                traceParent: inputs.traceParent, sessionID: inputs.sessionID,
                message: "remote operation failed, serving last good content")
            // A caller's forwarded credentials are not kept for retries beyond this request.
            if inputs.forwarded.isEmpty { refreshInBackground(url, key: key, inputs: inputs, retrying: true) }
            return Loaded(value: try parse(served.body), staleAgeSeconds: served.ageSeconds)
        }
    }

    /// The failures last good content may stand in for: the upstream's (5xx, refused, reset,
    /// timed out, too large, empty or unreadable), never a 4xx (the upstream's answer) or a
    /// refused URL.
    package static func staleMayStandIn(for error: UpstreamError) -> Bool {
        switch error.kind {
        case .timeout, .connectFailed, .connectionReset, .tooLarge, .invalidJSON, .emptyBody, .other: return true
        case .httpStatus(let status): return status >= 500
        case .invalidURL, .fileNotFound: return false
        }
    }

    /// Keeps `response`'s body as `key`'s last good content and reloads the sessions that were
    /// answered stale meanwhile.
    package func recordGood(_ key: String, _ response: UpstreamResponse) {
        let waiters = settings.services.stale.recordGood(
            key, body: response.body, response: response, policy: settings.definition.stalePolicy,
            confirmed: response.cacheStatus != .hit)
        guard !waiters.isEmpty else { return }
        Task.detached {
            for waiter in waiters { await waiter.performAction(Self.reloadAction) }
        }
    }

    /// Starts `key`'s one background refresh unless one runs. `retrying`: after a failure, wait
    /// and try again (1 s, doubling to 30 s) while a session waits and the error window lasts.
    package func refreshInBackground(_ url: String, key: String, inputs: Inputs, retrying: Bool) {
        let store = settings.services.stale
        guard store.beginRefresh(key) else { return }
        var inputs = inputs
        inputs.trace = []  // no request's span: it runs on its own
        Task.detached { [self] in
            defer { store.endRefresh(key) }
            var delay = Self.retryDelays.first
            while true {
                if retrying {
                    try? await Task.sleep(for: delay)
                    guard store.shouldRetry(key) else { return }
                }
                do {
                    let response = try await fetch(url, inputs)
                    _ = try parse(response.body)
                    recordGood(key, response)
                    return
                } catch {
                    guard retrying, store.shouldRetry(key) else { return }
                    delay = min(delay * 2, Self.retryDelays.longest)
                }
            }
        }
    }
}
