import Foundation
import HubServer
import HubTestSupport
import Testing

/// What a newcomer sees when the server cannot start: the message says what to do.
@Suite("Start-up errors")
struct StartupErrorTests {
    @Test("a busy port names the port and HUB_PORT")
    func busyPort() async throws {
        let directory = try TestConfig().write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withHub(directory: directory, transport: .socket) { _, first in
            let second = try HubApplication.load(directory: directory, environment: testEnvironment.merging(["HUB_PORT": String(first.port)]) { $1 })
            let error = try #require(throws: ListenError.self) { try second.start() }
            #expect(error.port == first.port)
            let message = error.description
            #expect(message.contains("127.0.0.1:\(first.port)"), "\(message)")
            #expect(message.contains("Address already in use"), "\(message)")
            #expect(message.contains("HUB_PORT"), "\(message)")
            await second.shutdown()
        }
    }

    @Test("a missing config directory says where it looked and how to name another")
    func missingConfigDirectory() throws {
        let error = try #require(throws: ConfigurationError.self) {
            try HubApplication.load(directory: "no-such-config-\(UUID().uuidString)", environment: [:])
        }
        let message = error.description
        #expect(message.contains("not a directory"), "\(message)")
        #expect(message.contains(FileManager.default.currentDirectoryPath), "\(message)")
        #expect(message.contains("HUB_CONFIG"), "\(message)")
        #expect(message.contains("--config"), "\(message)")
    }
}
