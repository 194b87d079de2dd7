import HubMetrics
import HubEngine
import HubHTTP
import HubModel
import HubSync

/// `GET /view`, `GET /view/initial`, `POST /view/next-page`, `DELETE /view`, `GET /view/events`.
struct ViewEndpoints {
    let state: ServerState
    var responder: ViewResponder { ViewResponder(state: state) }

    /// `GET /view?uri=U` opens a session; `GET /view?session=S` loads it (reload policy decides).
    /// A `session` that is unknown or expired falls back to `uri` when both are given.
    ///
    /// `HEAD` is served here too (the HTTP layer drops the body). It is safe (RFC 9110 9.2.1):
    /// with `uri` it answers the status and headers GET would, but keeps no session, so it
    /// sends no `Hub-Session`. With a live `session` it names that session, as GET does.
    func getView(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let uri = try QueryParameters.single("uri", in: request)
        // An invalid uri is 400 even when the session it would recover is alive.
        if let uri { _ = try QueryParameters.viewURI(uri) }
        if let sessionID = try QueryParameters.single("session", in: request) {
            if let session = state.engine.session(sessionID) {
                let viewState = await session.load(state.bridge.viewRequest(viewURI: session.viewURI, from: request))
                return try responder.response(for: viewState, sessionID: session.id, request: request)
            }
            guard uri != nil else {
                throw HTTPError(.notFound, code: "session_not_found", detail: "no session '\(sessionID)'; it may have expired")
            }
        }
        let viewURI = try QueryParameters.viewURI(uri)
        if request.method == .head {
            let viewState: ViewState
            do {
                viewState = try await state.engine.loadView(for: state.bridge.viewRequest(viewURI: viewURI, from: request))
            } catch {
                throw ProblemMapping.engineError(error)
            }
            return try responder.response(for: viewState, sessionID: nil, request: request)
        }
        let opened = try await openSession(viewURI: viewURI, request: request)
        return try responder.response(for: opened.state, sessionID: opened.session.id, request: request)
    }

    /// Opens a session. When its first load fails the engine does not keep it (`state.viewModel`
    /// is `nil`); ``ViewResponder`` then answers the problem without naming it.
    func openSession(viewURI: String, request: HTTPRequest) async throws -> (session: ViewSession, state: ViewState) {
        do {
            return try await state.engine.openSession(for: state.bridge.viewRequest(viewURI: viewURI, from: request))
        } catch {
            throw ProblemMapping.engineError(error)
        }
    }

    /// `GET /view/initial?uri=U`: the initial content only.
    func getInitialView(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let viewURI = try QueryParameters.viewURI(try QueryParameters.single("uri", in: request))
        let viewModel: ViewModel
        do {
            viewModel = try state.engine.initialViewModel(for: state.bridge.viewRequest(viewURI: viewURI, from: request))
        } catch {
            throw ProblemMapping.engineError(error)
        }
        let clientModel = responder.clientViewModel(viewModel, for: request)
        let bytes = clientModel.jsonBytes()
        return responder.finish(
            bytes: bytes, rendered: nil, headers: ["Content-Type": "application/json", "Cache-Control": "private, no-cache"],
            request: request)
    }

    /// `POST /view/next-page {"session": S}`: the full view with the next page appended.
    func nextPage(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let body = try JSONBody.object(from: request, maxDepth: state.settings.limits.jsonDepth)
        // As POST /action: an unknown field is a body of the wrong shape (422), not ignored.
        for key in body.orderedKeys where key != "session" {
            throw HTTPError(.unprocessableContent, code: "invalid_body", detail: "unknown field '\(key)'")
        }
        guard let sessionID = try JSONBody.string(body, "session") else {
            throw HTTPError(.unprocessableContent, code: "invalid_body", detail: "'session' is required")
        }
        guard let session = state.engine.session(sessionID) else {
            throw HTTPError(.notFound, code: "session_not_found", detail: "no session '\(sessionID)'; it may have expired")
        }
        let viewState = await session.loadNextPage()
        return try responder.response(for: viewState, sessionID: session.id, request: request)
    }

    /// `DELETE /view?session=S`: 204, or 404 when unknown.
    func deleteView(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        guard let sessionID = try QueryParameters.single("session", in: request), !sessionID.isEmpty else {
            throw HTTPError(.badRequest, code: "missing_session", detail: "give the session to end: ?session=S")
        }
        guard state.engine.endSession(sessionID) else {
            throw HTTPError(.notFound, code: "session_not_found", detail: "no session '\(sessionID)'")
        }
        return HTTPResponse(status: .noContent)
    }

    /// `GET /view/events?session=S`: `event: view` with the current model, then one per change.
    /// Beyond `limits.sseListenersPerSession` or `limits.sseStreams` the stream is refused
    /// (``StreamLimiter``); HEAD answers the headers without opening a stream.
    func events(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        guard let sessionID = try QueryParameters.single("session", in: request), !sessionID.isEmpty else {
            throw HTTPError(.badRequest, code: "missing_session", detail: "give the session to follow: ?session=S")
        }
        guard let session = state.engine.session(sessionID) else {
            throw HTTPError(.notFound, code: "session_not_found", detail: "no session '\(sessionID)'")
        }
        if request.method == .head {
            var response = HTTPResponse.serverSentEvents(AsyncStream { $0.finish() })
            response.headers.add(name: "Hub-Session", value: session.id)
            return response
        }
        let lease = try state.streamLimiter.acquire(session: session.id)
        let updates = await session.updates()
        let responder = self.responder
        let metrics = state.metrics
        let (events, continuation) = AsyncStream.makeStream(of: ServerSentEvent.self, bufferingPolicy: .bufferingNewest(16))
        let streams = state.streams
        let pump = Task {
            metrics.sseStreams.increment()
            defer { metrics.sseStreams.decrement() }
            for await viewState in updates {
                guard let viewModel = viewState.viewModel else { continue }
                let rendered = responder.rendered(viewModel, for: request, shared: viewState.isMemoized)
                continuation.yield(
                    ServerSentEvent(
                        event: "view", data: String(decoding: rendered.bytes, as: UTF8.self), id: String(viewState.version)))
            }
            continuation.finish()
        }
        let token = Locked<Int?>(nil)
        continuation.onTermination = { _ in
            pump.cancel()
            if let token = token.withLock({ $0 }) { streams.unregister(token) }
            lease.release()
        }
        // A drain ends the stream (the client reconnects elsewhere) instead of waiting for it.
        let registered = streams.register {
            pump.cancel()
            continuation.finish()
        }
        token.withLock { $0 = registered }
        if registered == nil {
            pump.cancel()
            continuation.finish()
        }
        var response = HTTPResponse.serverSentEvents(events)
        response.headers.add(name: "Hub-Session", value: session.id)
        return response
    }
}

/// Query parameter rules of DESIGN.md: `uri` and `session` at most once, non-empty.
enum QueryParameters {
    static func single(_ name: String, in request: HTTPRequest) throws -> String? {
        let values = request.queryValues(name)
        guard values.count <= 1 else {
            throw HTTPError(.badRequest, code: "duplicate_parameter", detail: "'\(name)' may be given only once")
        }
        return values.first
    }

    /// A view URI: present, non-empty, no control characters, at most 4096 bytes.
    static func viewURI(_ uri: String?) throws -> String {
        guard let uri else {
            throw HTTPError(.badRequest, code: "missing_uri", detail: "give the view URI: ?uri=hub:home")
        }
        guard !uri.isEmpty, uri.utf8.count <= 4096, !uri.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw HTTPError(.badRequest, code: "invalid_uri", detail: "the view URI must be non-empty printable text up to 4096 bytes")
        }
        return uri
    }
}
