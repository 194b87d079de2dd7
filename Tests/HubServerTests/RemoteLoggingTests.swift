import Foundation
import HubEngine
import HubModel
import HubServer
import HubSync
import Testing

/// DESIGN.md: a failing remote operation's error flows on as previousError either way;
/// `optional` only changes the log level (warning by default, debug when optional).
@Suite("Remote operation logging")
struct RemoteLoggingTests {
    @Test("a failing remote operation logs a warning, or debug when optional")
    func failureLogLevels() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-log-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory + "/features", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The operation and upstream limits a loaded machine never reaches: the failure logged is
        // the refused connection's, not a deadline's.
        try TestConfig.withGenerousTimeouts("{}")
            .write(toFile: "\(directory)/server.json", atomically: true, encoding: .utf8)
        // Port 1 on loopback refuses connections: a fast, certain upstream failure.
        for (name, optional) in [("required", false), ("optional", true)] {
            try """
                { "id": "\(name)", "title": "T", "match": { "uri": "hub:\(name)" },
                  "operations": [ { "kind": "remote", "url": "http://user:secret@127.0.0.1:1/x?token=s3cret&s={session}", "optional": \(optional) },
                                  { "kind": "recover", "json": { "title": "recovered" } } ] }
                """.write(toFile: "\(directory)/features/\(name).json", atomically: true, encoding: .utf8)
        }
        let lines = Locked<[String]>([])
        let logger = JSONLogger(level: .debug, format: .json) { line in lines.withLock { $0.append(line) } }
        let configuration = try ConfigLoader(environment: testEnvironment).load(directory: directory)
        let application = try HubApplication(configuration: configuration, logger: logger)

        var ids: [String] = []
        for name in ["required", "optional"] {
            let (session, state) = try await application.engine.openSession(for: ViewRequest(viewURI: "hub:\(name)"))
            ids.append(session.id)
            #expect(state.failure == nil, "recover clears the error")
            #expect(state.viewModel?.title == "recovered")
        }
        let failures = lines.withLock { $0 }.filter { $0.contains("remote operation failed") }
        #expect(failures.count == 2)
        #expect(failures.contains { $0.contains(#""level":"warning""#) && $0.contains(#""feature":"required""#) })
        #expect(failures.contains { $0.contains(#""level":"debug""#) && $0.contains(#""feature":"optional""#) })
        // The URL without query or userinfo; the session as a hash, never the bearer id.
        #expect(failures.allSatisfy { $0.contains(#""url":"http://127.0.0.1:1/x""#) })
        #expect(!failures.contains { $0.contains("s3cret") || $0.contains("secret@") })
        for id in ids { #expect(!failures.contains { $0.contains(id) }) }
        #expect(failures.contains { $0.contains(#""session":"\#(SessionIdentifier.logTag(ids[0]))""#) })
    }
}
