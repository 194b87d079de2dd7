import Foundation
import HubModel
import HubPrimitives
import Testing
@testable import HubConfig
@testable import HubEngine
@testable import HubHTTP
@testable import HubServer
import HubTestSupport

/// `GET /view?uri=` for many apps: a request that differs from a remembered one only in the field
/// the rollouts bucket on, and lands in the same buckets, gets the remembered answer
/// (`RequestBridge.isSameClientRequest(..., answerAlike: true)`), and never one whose buckets,
/// other fields or config could make its view differ.
@Suite struct AnswerAlikeRequestTests {
    /// `layout`: 50% `grid` by Hub-Client-Id. FNV-1a of "layout:client-N" mod 100 (worked out
    /// outside Swift): client-0 17, client-1 6, client-7 40 (grid); client-2 95, client-3 84 (list).
    static let layout = ToggleDefinition(
        name: "layout", values: ["list", "grid"], defaultValue: "list", rollout: [(value: "grid", percent: 50)],
        key: .header("Hub-Client-Id"))
    static let bridge = RequestBridge(
        retained: RetainedHeaders(names: ["hub-client-id", "x-named"], bucketKeys: ["Hub-Client-Id": [layout]]))
    static let uri = "hub:home"
    static let context = RequestContext(requestId: "r")

    static func baseline(_ headers: [(String, String)], bridge: RequestBridge = bridge) throws -> ViewRequest {
        let request = try #require(try SameClientRequestTests.requests(headers).first)
        return bridge.viewRequest(viewURI: uri, from: request, context: context, components: nil)
    }

    /// Whether `headers` (received and constructed alike) answer as `baseline`, and whether they
    /// are its client request.
    static func verdicts(
        _ headers: [(String, String)], against baseline: ViewRequest, bridge: RequestBridge = bridge
    ) throws -> (alike: Bool, same: Bool) {
        var answers: Set<[Bool]> = []
        for request in try SameClientRequestTests.requests(headers) {
            answers.insert([
                bridge.isSameClientRequest(viewURI: uri, from: request, user: nil, components: nil, as: baseline, answerAlike: true),
                bridge.isSameClientRequest(viewURI: uri, from: request, user: nil, components: nil, as: baseline),
            ])
        }
        #expect(answers.count == 1, "received and constructed agree: \(headers)")
        let answer = try #require(answers.first)
        return (answer[0], answer[1])
    }

    @Test("another client id in the same buckets is alike for the answer, never the same client request")
    func sameBucketsAreAlike() throws {
        let baseline = try Self.baseline([("Hub-Client-Id", "client-0"), ("X-Named", "1")])
        let cases: [(headers: [(String, String)], alike: Bool, why: String)] = [
            ([("Hub-Client-Id", "client-0"), ("X-Named", "1")], true, "the same request"),
            ([("X-Named", "1"), ("hub-client-id", "client-1")], true, "another id of the grid bucket, any order and case"),
            ([("Hub-Client-Id", "client-7"), ("X-Named", "1")], true, "another id of the grid bucket"),
            ([("Hub-Client-Id", "client-2"), ("X-Named", "1")], false, "an id of the list bucket"),
            ([("Hub-Client-Id", "client-3"), ("X-Named", "1")], false, "an id of the list bucket"),
            ([("Hub-Client-Id", "client-1"), ("X-Named", "2")], false, "another value of a field something else reads"),
            ([("Hub-Client-Id", "client-1")], false, "a field the baseline keeps is missing"),
            ([("X-Named", "1")], false, "no client id (the default) against the baseline's bucket"),
            ([("Hub-Client-Id", "client-1"), ("Hub-Client-Id", "client-7"), ("X-Named", "1")], false, "two client ids"),
            ([("Hub-Client-Id", "cli\u{E9}nt-1"), ("X-Named", "1")], false, "a client id that is not ASCII"),
            ([("Hub-Client-Id", "client-1"), ("X-Named", "1"), ("Hub-Toggle", "layout=grid")], false, "an override the baseline lacks"),
            ([("Hub-Client-Id", "client-1"), ("X-Named", "1"), ("Hub-Client", "ios/4.2.0")], false, "another Hub-Client"),
        ]
        for (headers, alike, why) in cases {
            let verdict = try Self.verdicts(headers, against: baseline)
            #expect(verdict.alike == alike, "\(headers): \(why)")
            #expect(verdict.same == (headers.count == 2 && headers[0].1 == "client-0"), "\(headers): only the very request is the same")
        }
    }

    @Test("a baseline without a client id is alike only to requests without one")
    func noClientID() throws {
        let baseline = try Self.baseline([("X-Named", "1")])
        #expect(try Self.verdicts([("X-Named", "1")], against: baseline).alike)
        #expect(try !Self.verdicts([("X-Named", "1"), ("Hub-Client-Id", "client-2")], against: baseline).alike, "list is the default, but a key is a key")
    }

    @Test("the fingerprint counts the buckets a client id picks, not the id, so it never rules out an alike request")
    func fingerprintCountsBuckets() throws {
        func fingerprint(_ headers: [(String, String)], answerAlike: Bool) throws -> KeptFieldsFingerprint {
            let request = try #require(try SameClientRequestTests.requests(headers).first)
            return Self.bridge.keptFieldsFingerprint(of: request, answerAlike: answerAlike)
        }
        let zero = [("Hub-Client-Id", "client-0"), ("X-Named", "1")]
        let one = [("Hub-Client-Id", "client-1"), ("X-Named", "1")]
        #expect(try fingerprint(zero, answerAlike: true) == fingerprint(one, answerAlike: true))
        #expect(try fingerprint(zero, answerAlike: false) != fingerprint(one, answerAlike: false))
        #expect(try fingerprint(zero, answerAlike: true) != fingerprint([("Hub-Client-Id", "client-0"), ("X-Named", "2")], answerAlike: true))
        // Other buckets, another fingerprint: many remembered classes of one view are told apart
        // without comparing each.
        #expect(try fingerprint(zero, answerAlike: true) != fingerprint([("Hub-Client-Id", "client-2"), ("X-Named", "1")], answerAlike: true))
    }

    /// A config directory with the `layout` toggle on Hub-Client-Id and `operations` for its one feature.
    static func retained(operations: String, extra: Set<String> = []) throws -> RetainedHeaders {
        let directory = NSTemporaryDirectory() + "alike-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/features", withIntermediateDirectories: true)
        try #"{ "layout": { "values": ["list", "grid"], "default": "list", "rollout": { "grid": 50 }, "key": "header:Hub-Client-Id" } }"#
            .write(toFile: directory + "/toggles.json", atomically: true, encoding: .utf8)
        try #"{ "id": "home", "title": "Home", "match": { "root": "hub:home" }, "operations": \#(operations) }"#
            .write(toFile: directory + "/features/home.json", atomically: true, encoding: .utf8)
        let loaded = try ConfigLoader(environment: [:]).load(directory: directory)
        return RetainedHeaders(configuration: loaded, extra: extra)
    }

    @Test("a field is a bucket key only when nothing but toggles reads it: not in a URL, not forwarded, not asked for by the app, no Swift operation")
    func bucketKeysFromTheConfig() throws {
        let variant = #"{ "kind": "variant", "toggle": "layout", "variants": { "grid": [{ "kind": "static", "json": { "title": "G" } }] } }"#
        func names(_ retained: RetainedHeaders) -> [String] { retained.bucketKeys.map { String(decoding: $0.name, as: UTF8.self) } }
        #expect(names(try Self.retained(operations: "[\(variant)]")) == ["hub-client-id"])
        #expect(try Self.retained(operations: "[\(variant)]").bucketKeys.first?.toggles.map(\.name) == ["layout"])
        let inURL = #"{ "kind": "remote", "url": "http://127.0.0.1:9/x?c={header.hub-client-id}" }"#
        #expect(names(try Self.retained(operations: "[\(variant), \(inURL)]")).isEmpty, "read by a URL template")
        let forwarded = #"{ "kind": "remote", "url": "http://127.0.0.1:9/x", "forwardHeaders": ["Hub-Client-Id"] }"#
        #expect(names(try Self.retained(operations: "[\(variant), \(forwarded)]")).isEmpty, "forwarded")
        #expect(names(try Self.retained(operations: "[\(variant)]", extra: ["HUB-CLIENT-ID"])).isEmpty, "asked for by the app")
        let swift = #"{ "kind": "swift", "name": "anything" }"#
        #expect(names(try Self.retained(operations: "[\(variant), \(swift)]")).isEmpty, "a Swift operation may read any field")
    }

    @Test("over a socket, a config without Swift operations: many apps in turn each get their own buckets' view, every round")
    func manyAppsOverASocket() async throws {
        var config = TestConfig()
        config["toggles.json"] = """
            { "layout": { "values": ["list", "grid"], "default": "list", "rollout": { "grid": 50 }, "key": "header:Hub-Client-Id" },
              "banner": { "values": ["off", "on"], "default": "off", "rollout": { "on": 50 }, "key": "header:Hub-Client-Id" } }
            """
        config.feature("home", """
            { "id": "home", "title": "Home", "match": { "root": "hub:home" }, "operations": [
                { "kind": "static", "json": { "body": [{ "id": "item", "text": { "title": "?" } }] } },
                { "kind": "variant", "toggle": "layout", "variants": {
                    "list": [{ "kind": "patch", "set": { "item": { "text": { "title": "List" } } } }],
                    "grid": [{ "kind": "patch", "set": { "item": { "text": { "title": "Grid" } } } }] } },
                { "kind": "variant", "toggle": "banner", "variants": {
                    "on": [{ "kind": "patch", "set": { "item": { "text": { "subtitle": "Banner" } } } }] } } ] }
            """)
        try await withHub(config, transport: .socket) { client, app in
            #expect(app.shared.bridge.retained.bucketKeys.count == 1, "Hub-Client-Id is a bucket key here")
            // Four buckets: the later rounds are answered from an alike app's remembered answer
            // or by preparing, never another bucket's.
            let ids = (0..<24).map { "client-\($0)" }
            let seen = try await client.appsInTurn("hub:home", ids: ids) { view in
                let item = try #require(view.component("item"))
                return "\(item["text"]?["title"]?.stringValue ?? "-")/\(item["text"]?["subtitle"]?.stringValue ?? "-")"
            }
            for id in ids {
                let expected = "\(Self.layout.rolloutValue(id) == "grid" ? "Grid" : "List")/"
                    + (Self.banner.rolloutValue(id) == "on" ? "Banner" : "-")
                #expect(seen[id] == expected, "\(id)")
            }
            #expect(Set(seen.values).count == 4, "all four buckets among the apps: \(Set(seen.values))")
        }
    }

    @Test("a reload that changes the rollouts: every app gets its new buckets' view, never an alike answer of the old ones")
    func reloadChangesTheBuckets() async throws {
        var config = TestConfig()
        func toggles(grid: Int) -> String {
            #"{ "layout": { "values": ["list", "grid"], "default": "list", "rollout": { "grid": \#(grid) }, "key": "header:Hub-Client-Id" } }"#
        }
        config["toggles.json"] = toggles(grid: 50)
        config.feature("home", """
            { "id": "home", "title": "Home", "match": { "root": "hub:home" }, "operations": [
                { "kind": "static", "json": { "body": [{ "id": "item", "text": { "title": "?" } }] } },
                { "kind": "variant", "toggle": "layout", "variants": {
                    "list": [{ "kind": "patch", "set": { "item": { "text": { "title": "List" } } } }],
                    "grid": [{ "kind": "patch", "set": { "item": { "text": { "title": "Grid" } } } }] } } ] }
            """)
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withHub(directory: directory, transport: .socket) { client, app in
            let ids = (0..<12).map { "client-\($0)" }
            func titles() async throws -> [String] {
                let seen = try await client.appsInTurn("hub:home", ids: ids, rounds: 1) { view in
                    view.component("item")?["text"]?["title"]?.stringValue ?? "-"
                }
                return ids.map { seen[$0] ?? "-" }
            }
            let before = try await titles()
            #expect(before == (0..<12).map { Self.layout.rolloutValue("client-\($0)") == "grid" ? "Grid" : "List" })
            #expect(app.shared.bridge.installed == app.engine.definitionsInstalled)
            for (grid, expected) in [(100, "Grid"), (0, "List"), (100, "Grid")] {
                try toggles(grid: grid).write(toFile: directory + "/toggles.json", atomically: true, encoding: .utf8)
                #expect(await app.reloadConfiguration(trigger: "test").succeeded)
                #expect(app.shared.bridge.installed == app.engine.definitionsInstalled, "the bridge is the installed config's")
                let after = try await titles()
                #expect(after == Array(repeating: expected, count: 12), "every app in the one bucket left (grid \(grid)%)")
            }
        }
    }

    static let banner = ToggleDefinition(
        name: "banner", values: ["off", "on"], defaultValue: "off", rollout: [(value: "on", percent: 50)],
        key: .header("Hub-Client-Id"))
}

extension ToggleDefinition {
    /// The rollout's value for client id `id`.
    func rolloutValue(_ id: String) -> String {
        ASCII.withUTF8(of: id) { rolloutValue(forKey: $0) }
    }
}
