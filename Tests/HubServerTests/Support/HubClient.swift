import Foundation
@testable import HubHTTP
import HubModel
import HubServer
import HubTestSupport

/// The tests' HTTP/1.1 client of a hub, one request per exchange (`Connection: close`), over
/// either transport with the same bytes both ways:
/// - ``Transport/socket(port:)``: a real loopback connection (``LoopbackClient``), for what is
///   about the transport, its limits and streams;
/// - ``Transport/memory(_:)``: no socket. The request's bytes are parsed by HubHTTP's
///   `RequestParser` with the application's limits, answered by ``HubApplication/respond(to:)``
///   (the same middleware stack and router), and the response encoded by `ResponseEncoder` as a
///   connection would (framing, `Date`, `X-Request-Id`, `Connection: close`, no body for HEAD),
///   then read back by the same parser as the socket's. A request the parser refuses gets the
///   answer a connection would send.
struct HubClient: Sendable {
    enum Transport: Sendable {
        case socket(port: Int)
        case memory(HubApplication)
    }

    let transport: Transport
    /// The loopback address a socket client connects from (`nil`: the kernel's choice, 127.0.0.1).
    let source: String?

    init(port: Int, source: String? = nil) {
        transport = .socket(port: port)
        self.source = source
    }

    init(_ transport: Transport) {
        self.transport = transport
        source = nil
    }

    /// The same hub, reached from another loopback address (a distinct client to per-client limits).
    func from(_ source: String) -> HubClient { HubClient(port: port, source: source) }

    /// The port of a socket client (a memory client has none).
    var port: Int {
        guard case .socket(let port) = transport else { preconditionFailure("an in-memory HubClient has no port") }
        return port
    }

    static func requestBytes(
        method: String, target: String, headers: [(String, String)], body: [UInt8]?
    ) -> [UInt8] {
        // `Host: 127.0.0.1` unless the test gives a Host of its own.
        let host = headers.contains { $0.0.lowercased() == "host" } ? "" : "Host: 127.0.0.1\r\n"
        var head = "\(method) \(target) HTTP/1.1\r\n\(host)Connection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + (body ?? [])
    }

    func send(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) async throws -> LoopbackResponse {
        let bytes = Self.requestBytes(method: method, target: target, headers: headers, body: body)
        let result: LoopbackResponse
        switch transport {
        case .socket(let port):
            result = try await blocking { [source] in
                let connection = try LoopbackClient(port: port, source: source)
                defer { connection.close() }
                try connection.send(bytes)
                return try connection.readResponse(method: method)
            }
        case .memory(let app):
            result = try LoopbackClient(received: await Self.exchange(bytes, with: app)).readResponse(method: method)
        }
        ViewRecorder.record(method: method, target: target, result: result)
        return result
    }

    /// `bytes` answered in memory, as a connection would answer them (see the type's documentation).
    static func exchange(_ bytes: [UInt8], with app: HubApplication) async throws -> [UInt8] {
        let settings = app.configuration.settings
        var parser = RequestParser(
            limits: HTTPServerConfiguration.Limits(
                requestLineBytes: settings.limits.requestLineBytes, headerBytes: settings.limits.headerBytes,
                headerCount: settings.limits.headerCount, bodyBytes: settings.limits.bodyBytes))
        parser.append(bytes)
        var request: HTTPRequest
        var response: HTTPResponse
        do {
            var result = try parser.parse()
            if case .expectContinue = result { result = try parser.parse() }
            switch result {
            case .request(let parsed):
                request = parsed
                request.remoteAddress = "127.0.0.1"
                response = await app.respond(to: request)
            case .rejected(let parsed, let error):
                request = parsed
                response = error.response
            case .needMoreData, .expectContinue:
                throw HarnessError("the request bytes are incomplete")
            }
        } catch let error as HTTPParseError {
            return encode(error.response, method: .get, version: .http1_1, requestID: RequestID.next())
        }
        return encode(response, method: request.method, version: request.version, requestID: RequestID.value(for: request))
    }

    /// The bytes a connection sends for `response` to a `Connection: close` request.
    private static func encode(_ response: HTTPResponse, method: HTTPMethod, version: HTTPVersion, requestID: RequestID.Value) -> [UInt8] {
        guard let body = response.body.bytes else {
            preconditionFailure("a streamed response (\(response.status.code)) needs a socket hub: withHub(..., transport: .socket)")
        }
        let noBody = response.status.forbidsBody
        let head = ResponseEncoder.head(
            status: response.status, headers: response.headers, framing: noBody ? .none : .length(body.count),
            keepAlive: false, version: version, requestId: requestID)
        return head + (noBody || method == .head ? [] : body)
    }

    func get(_ target: String, headers: [(String, String)] = []) async throws -> LoopbackResponse {
        try await send("GET", target, headers: headers)
    }

    func delete(_ target: String) async throws -> LoopbackResponse {
        try await send("DELETE", target)
    }

    /// POST with a JSON body (`Content-Type: application/json` unless `contentType` says otherwise).
    func post(
        _ target: String, _ json: String, contentType: String? = "application/json", headers: [(String, String)] = []
    ) async throws -> LoopbackResponse {
        var all = headers
        if let contentType { all.append(("Content-Type", contentType)) }
        return try await send("POST", target, headers: all, body: Array(json.utf8))
    }

    /// `GET /view?uri=U`, the URI percent-encoded.
    func view(_ uri: String, headers: [(String, String)] = []) async throws -> LoopbackResponse {
        try await get("/view?uri=\(encode(uri))", headers: headers)
    }

    func session(_ session: String, headers: [(String, String)] = []) async throws -> LoopbackResponse {
        try await get("/view?session=\(encode(session))", headers: headers)
    }

    func action(_ fields: String, headers: [(String, String)] = []) async throws -> LoopbackResponse {
        try await post("/action", fields, headers: headers)
    }

    /// The value of one sample line of `/metrics` (`name` with its labels, if any).
    func metric(_ name: String) async throws -> Double? {
        let text = try await get("/metrics").text
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }

    func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~:"))) ?? text
    }

    /// Opens `GET /view/events?session=S` on a socket and reads the response head.
    func events(session: String, lastEventID: String? = nil) async throws -> SSEStream {
        var headers: [(String, String)] = []
        if let lastEventID { headers.append(("Last-Event-ID", lastEventID)) }
        return try await events(target: "/view/events?session=\(encode(session))", headers: headers)
    }

    /// Opens `GET target` as an event stream with `headers` and reads the response head.
    func events(target: String, headers extra: [(String, String)]) async throws -> SSEStream {
        let port = self.port
        let headers = [("Accept", "text/event-stream")] + extra
        return try await blocking { [headers, source] in
            let connection = try LoopbackClient(port: port, source: source)
            try connection.send(Self.requestBytes(method: "GET", target: target, headers: headers, body: nil))
            let head = try connection.readHead()
            return SSEStream(connection: connection, status: head.status, headers: head.headers)
        }
    }
}

extension LoopbackResponse {
    /// The body parsed as JSON (HubModel's parser: ordered, Sendable).
    func json() throws -> JSONValue { try JSONParser().parse(body) }
}
