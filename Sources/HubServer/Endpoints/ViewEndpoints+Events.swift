import HubEngine
import HubHTTP
import HubMetrics
import HubModel
import HubPrimitives
import HubSync

extension ViewEndpoints {
    /// `GET /view/events?session=S` (or the `Hub-Session` header): `event: view` with the current
    /// model, then one per change; `event: end` before the stream closes when a config reload
    /// removed the view's feature. A stream that rebuilt its session sends `event: rebuilt` first
    /// (and its response carries `Hub-Rebuilt`) when the rebuild read the session's state
    /// (``RebuiltHeader``).
    /// Each event's `id` is the view's ETag (a keyed hash of its bytes, ``ViewTags``), so it means
    /// the same view in any replica sharing the session keys: a client reconnecting with `Last-Event-ID` equal to the current view's
    /// gets no duplicate; with an older id it gets the current view first.
    /// A listener that asks for patches (``wantsPatches(_:)``) gets `event: patch` for each change
    /// after the first view (``JSONPatchHistory``), and for a reconnect naming a recent view.
    /// Beyond `limits.sseListenersPerSession`, `limits.sseStreamsPerClient` or `limits.sseStreams`
    /// the stream is refused
    /// (``StreamLimiter``); HEAD answers the headers without opening a stream.
    nonisolated(nonsending) func events(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        // EventSource sends no headers, so the query form stays; fetch-based clients may use the header.
        let query = try QueryParameters.single("session", in: request)
        guard let token = try SessionReference.token(query, from: .query, in: request), !token.isEmpty else {
            throw HTTPError(
                .badRequest, code: "missing_session", detail: "give the session to follow: ?session=S or the Hub-Session header")
        }
        let components = try shared.requestComponents(of: request)
        let wantsPatches = try Self.wantsPatches(request)
        let viewRequests = shared.bridge.viewRequests(from: request, context: context, components: components)
        let found = try await shared.engine.session(
            named: token, user: context.user, bearerSuffices: true, need: .session, request: viewRequests
        ).require(request: viewRequests, admission: shared.admission(for: request, context: context))
        let session = found.session
        if request.method == .head {
            return RebuiltHeader.adding(
                found.rebuiltState,
                to: Self.sessionStream(
                    HTTPResponse.serverSentEvents(AsyncStream { $0.finish() }), token: session.token.encoded,
                    locale: session.locale))
        }
        let lease = try shared.streamLimiter.acquire(session: session.id, client: session.user.map { "user:" + $0.digest } ?? shared.client(of: request, context: context))
        let updates = await session.updates()
        let metrics = shared.metrics
        let (events, continuation) = AsyncStream.makeStream(
            of: EncodedServerSentEvent.self, bufferingPolicy: .bufferingNewest(16))
        // A stream that rebuilt its session says so before its first view (``RebuiltHeader``):
        // yielded before the pump starts, so it comes first.
        if let outcome = found.rebuiltState { continuation.yield(RebuiltHeader.event(outcome)) }
        let streams = shared.streams
        // The session's patch history lives while it has a patch listener (``JSONPatchHistory``).
        let patchHistory = wantsPatches ? shared.jsonPatchHistory : nil
        patchHistory?.join(session: session.id)
        let cursor = ListenerCursor(
            sessionID: session.id, viewURI: session.viewURI, request: request, shared: shared, renderer: renderer,
            patches: patchHistory)
        let shared = self.shared
        let sessionID = session.id
        let pump = Task {
            metrics.sseStreams.increment()
            defer { metrics.sseStreams.decrement() }
            var cursor = cursor
            for await viewState in updates {
                if let event = cursor.event(for: viewState) { continuation.yield(event) }
            }
            // A config reload removed the view's feature: say so before the stream closes (a
            // client should stop reconnecting: the token now answers 404).
            if await session.endReason == .featureRemoved {
                continuation.yield(Self.featureRemovedEncoded)
            }
            continuation.finish()
        }
        // timeouts.streamSeconds: the stream ends by itself after a while (the client reconnects
        // through the balancer, to the session's replica of the moment).
        let lifetime = Self.streamLifetime(maximum: shared.settings.timeouts.streamSeconds)
        let expiry = lifetime.map { lifetime in
            Task {
                try? await Task.sleep(for: lifetime)
                if !Task.isCancelled { continuation.finish() }
            }
        }
        let registration = Locked<Int?>(nil)
        continuation.onTermination = { _ in
            pump.cancel()
            expiry?.cancel()
            if let registered = registration.withLock({ $0 }) { streams.unregister(registered) }
            lease.release()
            patchHistory?.leave(session: sessionID)
        }
        // A drain ends the stream (the client reconnects elsewhere) instead of waiting for it.
        let registered = streams.register {
            pump.cancel()
            continuation.finish()
        }
        registration.withLock { $0 = registered }
        if registered == nil {
            pump.cancel()
            continuation.finish()
        }
        return RebuiltHeader.adding(
            found.rebuiltState,
            to: Self.sessionStream(
                HTTPResponse.serverSentEvents(encoded: events), token: session.token.encoded, locale: session.locale))
    }

    /// A session's event stream head: `Hub-Session`, and `Cache-Control: private, no-store` in
    /// place of the stream's generic `no-cache` (what names a session is private; nobody keeps a
    /// stream).
    /// `locale`: the session's (`Content-Language`, ``LocaleHeaders``).
    static func sessionStream(_ stream: HTTPResponse, token: String, locale: String? = nil) -> HTTPResponse {
        var response = stream
        response.headers.replaceOrAdd(name: "Cache-Control", value: "private, no-store")
        response.headers.add(name: HubHeaderName.session, value: token)
        LocaleHeaders.add(locale, to: &response.headers)
        return response
    }

    /// Whether a listener asked for JSON Patch events: `patch=json-patch` (EventSource cannot
    /// set headers) or `Hub-Accept-Patch: json-patch`. Another `patch` value is 400
    /// `invalid_parameter`; another header value is ignored (full views).
    static func wantsPatches(_ request: HTTPRequest) throws -> Bool {
        if let value = try QueryParameters.single("patch", in: request) {
            guard value == "json-patch" else {
                throw HTTPError(.badRequest, code: "invalid_parameter", detail: "'patch' must be json-patch")
            }
            return true
        }
        guard let header = request.headers["Hub-Accept-Patch"] else { return false }
        return header.split(separator: ",").contains { $0.trimmingOWS().lowercased() == "json-patch" }
    }

    /// The data of the `end` event sent when a reload removed the session's feature.
    static let featureRemovedEvent =
        #"{"reason":"feature_removed","detail":"the config no longer has a feature for this view; the session ended"}"#

    /// The `end` event of ``featureRemovedEvent``, encoded once.
    static let featureRemovedEncoded = EncodedServerSentEvent(ServerSentEvent(event: "end", data: featureRemovedEvent))

    /// How long one stream may stay open: between 80% and 100% of `maximum` seconds, drawn
    /// per stream; `nil` when `maximum` is 0 (no limit).
    static func streamLifetime(maximum: Double) -> Duration? {
        guard maximum > 0 else { return nil }
        return .seconds(maximum * Double.random(in: 0.8...1.0))
    }
}
