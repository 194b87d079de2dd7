import Foundation
import HubModel
import HubServer
import HubTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The config JSON Schemas in docs/schema/ are served by the binary, their
/// ranges and defaults are the loader's, and the demo config that points at them validates
/// without a warning.
@Suite("Config schemas: served, ranges and defaults, the demo's $schema")
struct ConfigSchemaDocumentTests {
    static func schemaNames() throws -> [String] {
        let directory = (BuildContext.root as NSString).appendingPathComponent("docs/schema")
        return try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }.sorted()
    }

    static func schema(_ name: String) throws -> JSONValue {
        try JSONParser().parse(Array(try BuildContext.read("docs/schema/\(name)").utf8))
    }

    @Test("GET /schema/config/NAME.json serves the bytes of docs/schema/NAME.json; another name is 404 schema_not_found")
    func servedBytesAreTheFiles() async throws {
        let names = try Self.schemaNames()
        #expect(names == ["actions.json", "custom-schema.json", "feature.json", "server.json", "toggles.json"])
        try await withHub(TestConfig()) { client, _ in
            for name in names {
                let response = try await client.get("/schema/config/\(name)")
                #expect(response.status == 200, "\(name)")
                #expect(response.header("Content-Type") == "application/schema+json")
                #expect(response.body == Array(try BuildContext.read("docs/schema/\(name)").utf8), "run python3 Tools/contracts.py")
                let document = try response.json()
                #expect(document["$schema"]?.stringValue == "https://json-schema.org/draft/2020-12/schema")
                #expect(document["$id"]?.stringValue == "/schema/config/\(name)")
            }
            for unknown in ["view-model.json", "server", "SERVER.JSON", "openapi.json", "server.json.bak", "%2E%2E"] {
                let problem = try expectProblem(try await client.get("/schema/config/\(unknown)"), 404, "schema_not_found")
                #expect(problem["detail"]?.stringValue?.contains("feature.json") == true)
            }
            try expectProblem(try await client.get("/schema/config/"), 404, "route_not_found")
            try expectProblem(try await client.get("/schema/config/..%2Fopenapi.json"), 404, "route_not_found")
        }
    }

    @Test("the demo Config/ loads without a warning: every file's $schema is accepted")
    func demoConfigHasNoWarnings() throws {
        let loaded = try ConfigLoader(environment: [:]).load(directory: (BuildContext.root as NSString).appendingPathComponent("Config"))
        #expect(loaded.warnings.isEmpty, "\(loaded.warnings)")
        let server = try BuildContext.read("Config/server.json")
        #expect(server.contains(#""$schema": "../docs/schema/server.json""#))
    }

    @Test("hub-server validate accepts the demo Config/ and its $schema keys: OK, no warning")
    func validateCommand() throws {
        let binary = try #require(ProcessSignalTests.binary, "hub-server should be built next to the tests")
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let process = try ChildProcess(
            executable: binary.path, arguments: ["validate", ProcessSignalTests.configDirectory.path],
            environment: ["PATH": "/usr/bin:/bin"], stdout: fds[1], stderr: fds[1])
        close(fds[1])
        let output = String(decoding: FileHandle(fileDescriptor: fds[0], closeOnDealloc: true).readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.exitedNormally && process.exitCode == 0, "\(output)")
        #expect(output.contains("OK: "), "\(output)")
        #expect(!output.contains("warning"), "\(output)")
    }

    /// Every numeric leaf of server.json's schema with its range, as a key path.
    static func rangedLeaves(_ schema: JSONValue, path: [String] = []) -> [(path: [String], leaf: JSONValue)] {
        guard let properties = schema["properties"]?.objectValue else { return [] }
        var leaves: [(path: [String], leaf: JSONValue)] = []
        for (key, value) in properties {
            if value["type"]?.stringValue == "object" {
                leaves += rangedLeaves(value, path: path + [key])
            } else if value["minimum"] != nil || value["maximum"] != nil {
                leaves.append((path + [key], value))
            }
        }
        return leaves
    }

    /// `server.json` with `value` at `path` (plus what the key needs to be judged alone).
    static func server(_ path: [String], _ value: JSONValue) -> JSONValue {
        var nested = value
        for (depth, key) in path.enumerated().reversed() {
            var object = JSONObject([(key, nested)])
            if depth == 1 && path[0] == "cors" { object["origins"] = "*" }
            // sseStreams may not exceed the connection cap.
            if depth == 1 && path[0] == "limits" && key != "connections" { object["connections"] = .int(1_000_000) }
            nested = .object(object)
        }
        return nested
    }

    /// The number a schema keyword holds.
    static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .int(let integer): return Double(integer)
        case .double(let double): return double
        default: return nil
        }
    }

    /// The loader's errors for a config of only this `server.json` (written as is); nil when it loads.
    static func verdict(_ server: JSONValue) throws -> [ConfigIssue]? {
        let directory = try TestConfig(server: "{}").write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data(server.jsonBytes).write(to: URL(fileURLWithPath: (directory as NSString).appendingPathComponent("server.json")))
        do {
            _ = try ConfigLoader(environment: [:]).load(directory: directory)
            return nil
        } catch {
            return error.issues.filter { $0.severity == .error }
        }
    }

    @Test("every range in server.json's schema is the loader's: both ends accepted, just past them refused")
    func rangesAreTheLoaders() throws {
        let leaves = Self.rangedLeaves(try Self.schema("server.json"))
        #expect(leaves.count >= 30, "\(leaves.map(\.path))")
        for (path, leaf) in leaves {
            let isInteger = leaf["type"]?.stringValue == "integer"
            let name = "$." + path.joined(separator: ".")
            var accepted: [JSONValue] = []
            var refused: [JSONValue] = []
            if let minimum = leaf["minimum"] {
                accepted.append(minimum)
                if let low = minimum.intValue, isInteger {
                    refused += [.int(low - 1), .double(Double(low) + 0.5)]
                } else if let low = Self.number(minimum) {
                    refused.append(.double(low.nextDown))
                }
            }
            if let maximum = leaf["maximum"] {
                accepted.append(maximum)
                if let high = maximum.intValue, isInteger {
                    refused.append(.int(high + 1))
                } else if let high = Self.number(maximum) {
                    refused.append(.double(high.nextUp))
                }
            }
            for value in accepted {
                let issues = try Self.verdict(Self.server(path, value))
                #expect(issues == nil, "\(name) = \(value.jsonString) is in the schema's range: \(issues ?? [])")
            }
            for value in refused {
                let issues = try Self.verdict(Self.server(path, value))
                #expect(issues?.contains { $0.path == name } == true, "\(name) = \(value.jsonString) is out of the schema's range: \(issues ?? [])")
            }
        }
    }

    /// `server.json` with every default the schema documents (`cors` and `locales` have none of
    /// their own: absent).
    static func defaults(_ schema: JSONValue) -> JSONObject {
        var object = JSONObject()
        for (key, value) in schema["properties"]?.objectValue ?? JSONObject() where key != "cors" && key != "locales" {
            if value["type"]?.stringValue == "object" {
                object[key] = .object(defaults(value))
            } else if let value = value["default"] {
                object[key] = value
            }
        }
        return object
    }

    @Test("server.json's documented defaults are ServerSettings' defaults, and the loader knows every key")
    func defaultsAreTheLoaders() throws {
        let server = JSONValue.object(Self.defaults(try Self.schema("server.json")))
        #expect(server["limits"]?["sseStreams"]?.intValue == 5000 && server["log"]?["access"]?["mode"]?.stringValue == "errors")
        let directory = try TestConfig(server: "{}").write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data(server.jsonBytes).write(to: URL(fileURLWithPath: (directory as NSString).appendingPathComponent("server.json")))
        let loaded = try ConfigLoader(environment: [:]).load(directory: directory)
        #expect(loaded.settings == ServerSettings(), "\(server.jsonString)")
        #expect(loaded.warnings.filter { $0.file == "server.json" }.isEmpty, "\(loaded.warnings)")
    }

    /// The dotted key paths of a JSON object (objects recursed).
    static func keyPaths(_ value: JSONValue, prefix: String = "") -> Set<String> {
        guard let object = value.objectValue else { return [] }
        var paths: Set<String> = []
        for (key, child) in object {
            paths.insert(prefix + key)
            paths.formUnion(keyPaths(child, prefix: prefix + key + "."))
        }
        return paths
    }

    /// The dotted key paths a schema declares (`properties`, recursed).
    static func schemaPaths(_ schema: JSONValue, prefix: String = "") -> Set<String> {
        guard let properties = schema["properties"]?.objectValue else { return [] }
        var paths: Set<String> = []
        for (key, child) in properties {
            paths.insert(prefix + key)
            paths.formUnion(schemaPaths(child, prefix: prefix + key + "."))
        }
        return paths
    }

    @Test("docs/CONFIG.md's server.json defaults load as ServerSettings' defaults, show every default, and the schema declares every key they show")
    func readmeDefaultsAreInTheSchema() throws {
        let readme = try BuildContext.read("docs/CONFIG.md")
        let start = try #require(readme.range(of: "`server.json`: every key optional; these are the defaults.\n\n```json\n"))
        let end = try #require(readme.range(of: "\n```", range: start.upperBound..<readme.endIndex))
        let shown = try JSONParser().parse(Array(readme[start.upperBound..<end.lowerBound].utf8))
        let directory = try TestConfig(server: String(readme[start.upperBound..<end.lowerBound])).write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let loaded = try ConfigLoader(environment: [:]).load(directory: directory)
        #expect(loaded.warnings.filter { $0.file == "server.json" }.isEmpty, "\(loaded.warnings)")
        #expect(loaded.settings == ServerSettings(), "docs/CONFIG.md's defaults are not the defaults")
        let schema = try Self.schema("server.json")
        let missing = Self.keyPaths(shown).subtracting(Self.schemaPaths(schema))
        #expect(missing.isEmpty, "keys docs/CONFIG.md documents but docs/schema/server.json does not: \(missing.sorted())")
        // And the block is whole: every key with a default (all but `cors` and `locales`, absent by default) is
        // shown, so a reader sees every default (`log.access` was once left out).
        let unshown = Self.keyPaths(.object(Self.defaults(schema))).subtracting(Self.keyPaths(shown))
        #expect(unshown.isEmpty, "defaults docs/CONFIG.md's block leaves out: \(unshown.sorted())")
        #expect(shown["log"]?["access"]?["mode"]?.stringValue == "errors")
    }
}
