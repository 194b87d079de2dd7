import Foundation
import HubHTTP
import HubSync

/// One request the upstream received.
struct UpstreamHit: Sendable {
    var method: String
    var target: String
    var path: String
    var query: [(name: String, value: String)]
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func queryValue(_ name: String) -> String? { query.first { $0.name == name }?.value }
    func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
}

/// What the upstream has seen, in order.
final class UpstreamLog: Sendable {
    private let hits = Locked<[UpstreamHit]>([])

    func append(_ hit: UpstreamHit) { hits.withLock { $0.append(hit) } }
    var all: [UpstreamHit] { hits.withLock { $0 } }
    func hits(path: String) -> [UpstreamHit] { all.filter { $0.path == path } }
    func count(path: String) -> Int { hits(path: path).count }
}

/// Records every request, then lets the router answer.
struct RecordingResponder: HTTPResponder {
    let log: UpstreamLog
    let next: Router

    func respond(to request: HTTPRequest, context: RequestContext) async throws -> HTTPResponse {
        var headers: [(name: String, value: String)] = []
        for (name, value) in request.headers { headers.append((name, value)) }
        log.append(
            UpstreamHit(
                method: request.method.rawValue, target: request.target, path: request.path, query: request.query,
                headers: headers, body: request.body))
        return try await next.respond(to: request, context: context)
    }
}

/// A real upstream HTTP server on 127.0.0.1:0, built from HubHTTP's `HTTPServer` and `Router`.
final class TestUpstream: Sendable {
    let server: HTTPServer
    let log = UpstreamLog()

    init(_ configure: (inout Router) -> Void) throws {
        var router = Router()
        configure(&router)
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.timeouts.drain = .milliseconds(200)
        server = HTTPServer(configuration: configuration, responder: RecordingResponder(log: log, next: router))
        try server.start()
    }

    var port: Int { server.localPort }
    var base: String { "http://127.0.0.1:\(port)" }

    func shutdown() async { await server.shutdown() }

    static func json(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: .bytes(Array(text.utf8)))
    }
}

/// Starts an upstream, runs `body`, always shuts it down.
@discardableResult
func withUpstream<T>(
    _ configure: (inout Router) -> Void, _ body: (TestUpstream) async throws -> T
) async throws -> T {
    let upstream = try TestUpstream(configure)
    do {
        let result = try await body(upstream)
        await upstream.shutdown()
        return result
    } catch {
        await upstream.shutdown()
        throw error
    }
}
