import Dispatch
@testable import HubHTTP
import HubTestSupport
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Short limits and timeouts so every rule can be hit quickly over real loopback sockets.
/// Small limits, and read, idle and send timeouts long enough that a loaded machine never
/// reaches them; a test of a timeout sets that timeout short itself (``shortTimeouts``).
func testConfiguration(_ change: (inout HTTPServerConfiguration) -> Void = { _ in }) -> HTTPServerConfiguration {
    var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
    configuration.limits = .init(requestLineBytes: 256, headerBytes: 1024, headerCount: 10, bodyBytes: 1000, connections: 50, maxRequestsPerConnection: 100)
    configuration.timeouts = .seconds(header: 60, body: 60, idle: 60, send: 60, drain: 2)
    change(&configuration)
    return configuration
}

func testRouter() -> Router {
    var router = Router()
    router.add(.get, "/hello") { _, _ in .text("hello") }
    router.add(.post, "/echo") { request, _ in HTTPResponse(bytes: request.body) }
    router.add(.get, "/sleep/{ms}") { _, context in
        let ms = Int(context.pathParameters["ms"] ?? "0") ?? 0
        try? await Task.sleep(for: .milliseconds(ms))
        return .text("slept \(ms)")
    }
    router.add(.get, "/big/{kb}") { _, context in
        let kb = Int(context.pathParameters["kb"] ?? "1") ?? 1
        return HTTPResponse(bytes: [UInt8](repeating: UInt8(ascii: "x"), count: kb * 1024))
    }
    router.add(.get, "/crash") { _, _ in throw CancellationError() }
    return router
}

/// The short read and idle timeouts the timeout tests check (header 0.3 s, body 0.5 s, idle 0.3 s).
func shortTimeouts(_ configuration: inout HTTPServerConfiguration) {
    configuration.timeouts.header = .milliseconds(300)
    configuration.timeouts.body = .milliseconds(500)
    configuration.timeouts.idle = .milliseconds(300)
}

/// Whether a new connection to `port` reaches the server whose `/token` route answers `token`.
func reaches(port: Int, token: String) -> Bool {
    guard let probe = try? LoopbackClient(port: port, receiveTimeout: 5),
          (try? probe.send("GET /token HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")) != nil,
          let response = try? probe.readResponse()
    else { return false }
    return response.text == token
}

func withServer(
    _ configuration: HTTPServerConfiguration = testConfiguration(), responder: any HTTPResponder = testRouter(),
    _ body: (HTTPServer) async throws -> Void
) async throws {
    let server = HTTPServer(configuration: configuration, responder: responder.wrapped(in: [ErrorMiddleware()]))
    try server.start()
    do {
        try await body(server)
    } catch {
        await server.shutdown()
        throw error
    }
    await server.shutdown()
}
