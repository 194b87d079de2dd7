import Dispatch
import Glibc
import HubHTTP
import HubSync

extension TestUpstream {
    /// An upstream answered by a HubHTTP ``Router`` (`configure` adds the routes) behind
    /// ``ErrorMiddleware`` (an unknown path is a 404 problem), as a HubHTTP server would answer,
    /// `Date` included. Handlers are async: they run on the cooperative pool while the
    /// connection's own thread waits for them. Byte bodies only (no streams).
    public convenience init(_ configure: (inout Router) -> Void) throws {
        var router = Router()
        configure(&router)
        let responder = router.wrapped(in: [ErrorMiddleware()])
        try self.init { request in Self.answer(request, with: responder) }
    }

    /// A JSON response (`Content-Type: application/json`) for a router handler.
    public static func json(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: .bytes(Array(text.utf8)))
    }

    /// Runs `responder` for `request` and waits (on this connection's thread) for its answer.
    static func answer(_ request: Request, with responder: any HTTPResponder) -> Action {
        let answered = Locked<HTTPResponse?>(nil)
        let done = DispatchSemaphore(value: 0)
        let httpRequest = request.httpRequest
        Task {
            let response = await responder.response(to: httpRequest, context: RequestContext(requestId: RequestID.generate()))
            answered.withLock { $0 = response }
            done.signal()
        }
        done.wait()
        guard let response = answered.withLock({ $0 }) else { return .close }
        let framing = ["content-length", "transfer-encoding", "connection", "date"]
        var headers = response.headers.filter { !framing.contains($0.name.lowercased()) }.map { ($0.name, $0.value) }
        headers.append(("Date", httpDate()))
        return .respond(status: response.status.code, headers: headers, body: response.body.bytes ?? [])
    }

    /// Now as an IMF-fixdate (RFC 9110 section 5.6.7).
    static func httpDate() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
