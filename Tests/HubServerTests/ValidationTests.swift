import Foundation
import HubServer
import Testing

/// `HubApplication.validate` (what `hub-server validate` runs) checks what `serve` would build
/// and writes nothing: no generated session key, no state database, no data directory.
@Suite("Validation without side effects")
struct ValidationTests {
    static let feature = #"{ "id": "x", "title": "X", "match": { "root": "hub:x" }, "operations": [ { "kind": "static", "json": { "body": [] } } ] }"#

    @Test("a valid config passes and leaves its data directory (and the SQLite state file) uncreated")
    func writesNothing() throws {
        let data = NSTemporaryDirectory() + "hub-validate-\(UInt64.random(in: 0...UInt64.max))"
        var config = TestConfig(server: #"{ "dataDirectory": "\#(data)", "state": { "backend": "sqlite" } }"#)
        config.feature("x", Self.feature)
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let loaded = try ConfigLoader(environment: [:]).load(directory: directory)
        try HubApplication.validate(loaded, extensions: SwiftExtensions())
        #expect(!FileManager.default.fileExists(atPath: data), "validate created \(data)")
    }

    @Test("what serve would refuse is refused: an unregistered Swift action factory, a bad key file")
    func refuses() throws {
        var unknown = TestConfig(server: "{}")
        unknown.feature("x", Self.feature)
        unknown.files["actions.json"] = #"{ "cart": { "kind": "swift", "name": "cart" } }"#
        let unknownDirectory = try unknown.write()
        defer { try? FileManager.default.removeItem(atPath: unknownDirectory) }
        #expect(throws: ConfigurationError.self) {
            try HubApplication.validate(
                try ConfigLoader(environment: [:]).load(directory: unknownDirectory), extensions: SwiftExtensions())
        }

        var badKey = TestConfig(server: #"{ "sessions": { "keyFile": "missing-keys" } }"#)
        badKey.feature("x", Self.feature)
        let keyDirectory = try badKey.write()
        defer { try? FileManager.default.removeItem(atPath: keyDirectory) }
        let error = #expect(throws: ConfigurationError.self) {
            try HubApplication.validate(try ConfigLoader(environment: [:]).load(directory: keyDirectory), extensions: SwiftExtensions())
        }
        #expect(error?.issues.contains { $0.path == "$.sessions.keyFile" } == true, "\(String(describing: error?.issues))")
    }
}
