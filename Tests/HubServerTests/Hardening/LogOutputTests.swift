import Foundation
import HubServer
import HubSync
import HubTestSupport
import Testing

/// Log lines a machine can read and a client cannot forge.
@Suite("Hardening: log output")
struct LogOutputTests {
    @Test("json lines keep numbers as numbers")
    func jsonNumbers() throws {
        let lines = Locked<[String]>([])
        let logger = JSONLogger(level: .info, format: .json) { line in lines.withLock { $0.append(line) } }
        logger.log(.info, "request", ["status": .int(404), "duration_ms": .double(1.5), "code": "route_not_found"])
        let line = try #require(lines.withLock { $0.first })
        #expect(line.contains(#""status":404"#))
        #expect(line.contains(#""duration_ms":1.5"#))
        #expect(line.contains(#""code":"route_not_found""#))
    }

    @Test("text lines escape control characters, so a %0A in a path cannot start a new line")
    func textEscapes() throws {
        let lines = Locked<[String]>([])
        let logger = JSONLogger(level: .info, format: .text) { line in lines.withLock { $0.append(line) } }
        logger.log(.info, "request", ["path": "/view\n2026-01-01T00:00:00Z ERROR forged", "status": .int(200), "plain": "abc"])
        let line = try #require(lines.withLock { $0.first })
        #expect(!line.contains("\n"))
        #expect(line.contains(#"path="/view\n2026"#))
        #expect(line.contains("status=200"))
        #expect(line.contains("plain=abc"))
    }

    @Test("a failed request's log line names its problem code")
    func problemCodeInRequestLine() async throws {
        let lines = Locked<[String]>([])
        let logger = JSONLogger(level: .info, format: .json) { line in lines.withLock { $0.append(line) } }
        let directory = try Hardening.config().write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = try ConfigLoader(
            swiftOperationNames: ["todoList", "headers", "pages"], swiftActionNames: ["todo"], environment: testEnvironment
        ).load(directory: directory)
        let app = try HubApplication(configuration: configuration, extensions: Hardening.extensions(), logger: logger)
        try app.start()
        let client = HubClient(port: app.port)
        _ = try await client.get("/view?uri=hub:nothing-here")
        await app.shutdown()
        let requestLine = lines.withLock { $0.first { $0.contains(#""msg":"request""#) } }
        let line = try #require(requestLine)
        #expect(line.contains(#""code":"feature_not_found""#))
        #expect(line.contains(#""status":404"#))
    }
}
