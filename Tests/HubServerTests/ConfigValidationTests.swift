import Foundation
import HubModel
import HubServer
import HubTestSupport
import Testing

/// `ConfigLoader().load(directory:)` reports every error with its file, JSON path and message.
@Suite("Config validation")
struct ConfigValidationTests {
    static func brokenConfig() -> TestConfig {
        var config = TestConfig()
        let valid = #"[ { "kind": "static", "json": { "body": [ { "id": "x" } ] } } ]"#
        config["toggles.json"] = #"{ "layout": { "values": ["list", "grid"], "default": "list" } }"#
        config.feature("a-first", #"{ "id": "dup", "title": "A", "match": { "root": "hub:a" }, "operations": \#(valid) }"#)
        config.feature("b-second", #"{ "id": "dup", "title": "B", "match": { "root": "hub:b" }, "operations": \#(valid) }"#)
        config.feature("c-kind", """
            { "id": "c", "title": "C", "match": { "root": "hub:c" },
              "operations": [ { "kind": "static", "json": { "body": [] } }, { "kind": "teleport" } ] }
            """)
        config.feature("d-url", """
            { "id": "d", "title": "D", "match": { "root": "hub:d" },
              "operations": [ { "kind": "remote", "url": "http://127.0.0.1:9/items?q={nope}" } ] }
            """)
        config.feature("e-toggle", """
            { "id": "e", "title": "E", "match": { "root": "hub:e" },
              "operations": [ { "kind": "variant", "toggle": "missingToggle", "variants": { "on": [] } } ] }
            """)
        config.feature("f-match", #"{ "id": "f", "title": "F", "match": { "root": "hub:f", "uri": "hub:f" }, "operations": \#(valid) }"#)
        config.feature("g-pattern", #"{ "id": "g", "title": "G", "match": { "pattern": "([" }, "operations": \#(valid) }"#)
        return config
    }

    @Test("several errors at once, each with file, JSON path and message")
    func reportsEveryError() throws {
        let directory = try Self.brokenConfig().write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let error = #expect(throws: ConfigurationError.self) {
            _ = try ConfigLoader(environment: [:]).load(directory: directory)
        }
        let issues = try #require(error).issues.filter { $0.severity == .error }
        func has(_ file: String, _ path: String, _ message: String) -> Bool {
            issues.contains { $0.file == file && $0.path == path && $0.message.contains(message) }
        }
        #expect(has("features/b-second.json", "$.id", "duplicate feature id 'dup'"), "\(issues)")
        #expect(has("features/c-kind.json", "$.operations[1].kind", "unknown operation kind 'teleport'"), "\(issues)")
        #expect(has("features/d-url.json", "$.operations[0].url", "{nope}"), "\(issues)")
        #expect(has("features/e-toggle.json", "$.operations[0].toggle", "missingToggle"), "\(issues)")
        #expect(has("features/f-match.json", "$.match", "exactly one"), "\(issues)")
        #expect(has("features/g-pattern.json", "$.match.pattern", "regular expression"), "\(issues)")
        #expect(issues.count >= 6)
        #expect(!issues.contains { $0.file.hasPrefix("features/a-first") }, "the first of the duplicates is fine")
        // The description lists them as `file: path: message`.
        #expect(try #require(error).description.contains("features/d-url.json: $.operations[0].url: "))
    }

    @Test("HubApplication.load refuses a broken config; swift names are checked against the extensions")
    func applicationRefuses() throws {
        var config = TestConfig()
        config.feature("s", #"{ "id": "s", "title": "S", "match": { "root": "hub:s" }, "operations": [ { "kind": "swift", "name": "unregistered" } ] }"#)
        config["actions.json"] = #"{ "cart": { "kind": "ftp" } }"#
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let error = #expect(throws: ConfigurationError.self) {
            _ = try HubApplication.load(directory: directory, environment: testEnvironment)
        }
        let issues = try #require(error).issues
        #expect(issues.contains { $0.file == "features/s.json" && $0.path == "$.operations[0].name" && $0.message.contains("unregistered") }, "\(issues)")
        #expect(issues.contains { $0.file == "actions.json" && $0.path == "$.cart.kind" && $0.message.contains("ftp") }, "\(issues)")
    }

    @Test("server.json errors name the key; an invalid HUB_PORT names the variable")
    func serverSettingsErrors() throws {
        var config = TestConfig(server: #"{ "port": "eighty", "limits": { "bodyBytes": -1 } }"#)
        config.feature("ok", #"{ "id": "ok", "title": "OK", "match": { "root": "hub:ok" }, "operations": [ { "kind": "static", "json": { "body": [] } } ] }"#)
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let error = #expect(throws: ConfigurationError.self) {
            _ = try ConfigLoader(environment: ["HUB_PORT": "99999"]).load(directory: directory)
        }
        let issues = try #require(error).issues
        #expect(issues.contains { $0.file == "server.json" && $0.path == "$.port" }, "\(issues)")
        #expect(issues.contains { $0.file == "server.json" && $0.path == "$.limits.bodyBytes" }, "\(issues)")
        #expect(issues.contains { $0.path == "HUB_PORT" }, "\(issues)")
    }
}

@Suite("Config loading")
struct ConfigLoadingTests {
    @Test("HUB_CONFIG picks the directory; uri lists ignore the view URI's query; toggles keyed by query")
    func loading() async throws {
        var config = TestConfig()
        config["toggles.json"] = #"{ "mode": { "values": ["a", "b"], "default": "a", "rollout": { "b": 100 }, "key": "query:cid" } }"#
        config.feature("list", """
            { "id": "list", "title": "List", "match": { "uri": ["hub:one", "hub:two"] },
              "operations": [ { "kind": "static", "json": { "body": [ { "id": "x" } ] } },
                { "kind": "variant", "toggle": "mode", "variants": {
                    "b": [ { "kind": "patch", "set": { "x": { "text": { "title": "B" } } } } ] } } ] }
            """)
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let app = try HubApplication.load(environment: testEnvironment.merging(["HUB_CONFIG": directory]) { $1 })
        #expect(app.configuration.directory == directory)
        try app.start()
        let client = HubClient(port: app.port)
        do {
            #expect(try await client.view("hub:one").status == 200)
            #expect(try await client.view("hub:two?x=1").status == 200)
            try expectProblem(try await client.view("hub:three"), 404, "feature_not_found")
            try expectProblem(try await client.view("hub:one:child"), 404, "feature_not_found")
            #expect(try await client.view("hub:one").json().component("x")?["text"]?["title"] == nil, "no key: default a")
            #expect(try await client.view("hub:one?cid=7").json().component("x")?["text"]?["title"]?.stringValue == "B")
        } catch {
            await app.shutdown()
            throw error
        }
        await app.shutdown()
    }

    @Test("unknown keys are warnings; duplicate keys in static content are errors")
    func warningsAndDuplicateKeys() throws {
        var config = TestConfig()
        config["content/dup.json"] = #"{ "body": [ { "id": "a", "id": "b" } ] }"#
        config.feature("ok", #"{ "id": "ok", "title": "OK", "colour": "blue", "match": { "root": "hub:ok" }, "operations": [ { "kind": "static", "json": { "body": [] } } ] }"#)
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let loaded = try ConfigLoader(environment: [:]).load(directory: directory)
        #expect(loaded.warnings.contains { $0.file == "features/ok.json" && $0.path.contains("colour") && $0.severity == .warning }, "\(loaded.warnings)")

        config.feature("dup", #"{ "id": "dup", "title": "Dup", "match": { "root": "hub:dup" }, "operations": [ { "kind": "static", "file": "content/dup.json" } ] }"#)
        let broken = try config.write()
        defer { try? FileManager.default.removeItem(atPath: broken) }
        let error = #expect(throws: ConfigurationError.self) { _ = try ConfigLoader(environment: [:]).load(directory: broken) }
        #expect(try #require(error).issues.contains { $0.file == "features/dup.json" && $0.path == "$.operations[0].file" }, "\(String(describing: error))")
    }

    @Test("a uri or exclude entry with a query is a warning naming what it really matches; clean entries are not")
    func queriesInExactURIs() async throws {
        var config = TestConfig()
        config.feature("q", """
            { "id": "q", "title": "Q", "match": { "root": "hub:q", "exclude": ["hub:q:old", "hub:q:a?legacy=1"] },
              "operations": [ { "kind": "static", "json": { "body": [ { "id": "x" } ] } } ] }
            """)
        config.feature("r", """
            { "id": "r", "title": "R", "match": { "uri": "hub:r#top" },
              "operations": [ { "kind": "static", "json": { "body": [ { "id": "x" } ] } } ] }
            """)
        config.feature("clean", """
            { "id": "clean", "title": "Clean", "match": { "uri": ["hub:c"], "exclude": "hub:c:x" },
              "operations": [ { "kind": "static", "json": { "body": [ { "id": "x" } ] } } ] }
            """)
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let loaded = try ConfigLoader(environment: [:]).load(directory: directory)
        let exclusion = try #require(loaded.warnings.first { $0.file == "features/q.json" }, "\(loaded.warnings)")
        #expect(exclusion.path == "$.match.exclude[1]" && exclusion.severity == .warning)
        #expect(exclusion.message.contains("'hub:q:a?legacy=1'") && exclusion.message.contains("'hub:q:a' itself included"),
                "\(exclusion.message)")
        let uri = try #require(loaded.warnings.first { $0.file == "features/r.json" }, "\(loaded.warnings)")
        #expect(uri.path == "$.match.uri" && uri.message.contains("matches 'hub:r' with any query"), "\(uri)")
        #expect(loaded.warnings.filter { $0.file == "features/q.json" }.count == 1, "\(loaded.warnings)")
        #expect(!loaded.warnings.contains { $0.file == "features/clean.json" }, "\(loaded.warnings)")

        // What the warnings say is what serving does.
        let app = try HubApplication.load(environment: testEnvironment.merging(["HUB_CONFIG": directory]) { $1 })
        try app.start()
        let client = HubClient(port: app.port)
        do {
            try expectProblem(try await client.view("hub:q:a"), 404, "feature_not_found")
            try expectProblem(try await client.view("hub:q:a?other=1"), 404, "feature_not_found")
            #expect(try await client.view("hub:q:b").status == 200)
            #expect(try await client.view("hub:r?page=2").status == 200)
        } catch {
            await app.shutdown()
            throw error
        }
        await app.shutdown()
    }
}
