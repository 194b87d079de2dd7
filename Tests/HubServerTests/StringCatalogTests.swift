import Foundation
import HubEngine
import HubModel
import HubServer
import HubTestSupport
import Testing

/// String catalogs (`Config/strings/<locale>.json`): `{"$t": key}` in static and remote JSON
/// becomes the string of the request's locale, falling back along its chain to the default
/// (counted as missing); `validate` warns about what the catalogs miss, and `serve` still
/// starts (docs/LOCALIZATION.md "String catalogs").
@Suite("String catalogs")
struct StringCatalogTests {
    static func config(upstream: String? = nil) -> TestConfig {
        var config = TestConfig(server: """
            { "host": "127.0.0.1", "port": 0, "log": { "level": "error" },
              "locales": { "supported": ["en", "de", "fr"], "default": "en" } }
            """)
        var operations = [#"{ "kind": "static", "file": "content/cart.json" }"#]
        if let upstream { operations.append(#"{ "kind": "remote", "url": "\#(upstream)" }"#) }
        config.feature("cart", """
            { "id": "cart", "title": "Cart", "match": { "root": "hub:cart" }, "operations": [ \(operations.joined(separator: ", ")) ] }
            """)
        config["content/cart.json"] = """
            { "title": { "$t": "cart.title" },
              "body": [ { "id": "count", "text": { "title": { "$t": "cart.count", "args": { "count": 3 } } } },
                        { "id": "only", "text": { "title": { "$t": "only.english" } } },
                        { "id": "literal", "text": { "title": "{count} stays" }, "custom": { "label": { "$t": "cart.title", "extra": 1 } } } ] }
            """
        config["strings/en.json"] = #"{ "cart.title": "Cart", "cart.count": "{count} items", "only.english": "English only", "remote.title": "From upstream, {who}" }"#
        config["strings/de.json"] = #"{ "$comment": "German", "cart.title": "Warenkorb", "cart.count": "{count} Artikel", "remote.title": "Vom Upstream, {who}" }"#
        return config
    }

    @Test("static content in the request's locale, with arguments; a missing string falls back to the default and is counted")
    func staticContent() async throws {
        try await withHub(Self.config()) { client, _ in
            let german = try await client.view("hub:cart", headers: [("Accept-Language", "de")]).json()
            #expect(german["title"]?.stringValue == "Warenkorb")
            #expect(german.component("count")?["text"]?["title"]?.stringValue == "3 Artikel")
            #expect(german.component("only")?["text"]?["title"]?.stringValue == "English only", "falls back to en")
            #expect(german.component("literal")?["text"]?["title"]?.stringValue == "{count} stays")
            #expect(german.component("literal")?["custom"]?["label"]?["$t"]?.stringValue == "cart.title",
                    "an object with other keys is content, not a reference")
            #expect(try await client.metric(#"hub_strings_missing_total{locale="de"}"#) == 1)

            // fr has no catalog: every string is the default's, each counted.
            let french = try await client.view("hub:cart", headers: [("Hub-Locale", "fr")]).json()
            #expect(french["title"]?.stringValue == "Cart")
            #expect(try await client.metric(#"hub_strings_missing_total{locale="fr"}"#) == 3)
            let english = try await client.view("hub:cart", headers: [("Accept-Language", "en")]).json()
            #expect(english.component("count")?["text"]?["title"]?.stringValue == "3 items")
            #expect(try await client.metric(#"hub_strings_missing_total{locale="en"}"#) == nil, "nothing missing in en")
        }
    }

    @Test("remote JSON is resolved in the request's locale before the schema reads it")
    func remoteContent() async throws {
        let upstream = try TestUpstream { _ in
            .respond(
                status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "max-age=60")],
                body: Array(#"[ { "id": "remote", "text": { "title": { "$t": "remote.title", "args": { "who": "Ada" } } } } ]"#.utf8))
        }
        defer { upstream.stop() }
        try await withHub(Self.config(upstream: upstream.url("/rows")), transport: .socket) { client, _ in
            for (header, expected) in [("de", "Vom Upstream, Ada"), ("en", "From upstream, Ada"), ("de-AT", "Vom Upstream, Ada")] {
                let view = try await client.view("hub:cart", headers: [("Accept-Language", header)]).json()
                #expect(view.component("remote")?["text"]?["title"]?.stringValue == expected, "\(header)")
            }
            #expect(upstream.log.count(path: "/rows") == 1, "one upstream response, resolved per locale")
        }
    }

    @Test("validate names missing keys, references to no key and catalogs of unsupported locales; serve still starts")
    func validateWarnings() async throws {
        var config = Self.config()
        config.feature("extra", #"{ "id": "extra", "title": "Extra", "match": { "root": "hub:extra" }, "operations": [ { "kind": "static", "json": { "title": { "$t": "no.such.key" } } } ] }"#)
        config["strings/ja.json"] = #"{ "cart.title": "カート" }"#
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let loaded = try ConfigLoader(environment: testEnvironment).load(directory: directory)
        try HubApplication.validate(loaded, extensions: SwiftExtensions())
        let warnings = loaded.warnings.map(\.description)
        #expect(warnings.contains { $0.hasPrefix("strings/de.json: ") && $0.contains("'only.english'") && $0.contains("locale 'de'") },
                "\(warnings)")
        #expect(warnings.contains { $0.hasPrefix("strings/fr.json: $: ") && $0.contains("'fr'") }, "\(warnings)")
        #expect(warnings.contains { $0.hasPrefix("features/extra.json: $.operations[0]: ") && $0.contains("no.such.key") },
                "\(warnings)")
        #expect(warnings.contains { $0.hasPrefix("strings/ja.json: ") && $0.contains("not a supported locale") }, "\(warnings)")
        #expect(loaded.warnings.allSatisfy { $0.severity == .warning })
        // serve starts, and the unknown key shows as itself.
        try await withHub(directory: directory) { client, _ in
            let view = try await client.view("hub:extra", headers: [("Accept-Language", "de")])
            #expect(view.status == 200)
            #expect(try view.json()["title"]?.stringValue == "no.such.key")
        }
    }

    @Test("a catalog change reloads with the config: sessions see the new string")
    func reloads() async throws {
        let config = Self.config()
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withHub(directory: directory) { client, app in
            let opened = try await client.view("hub:cart", headers: [("Accept-Language", "de")])
            #expect(try opened.json()["title"]?.stringValue == "Warenkorb")
            let token = try #require(opened.header("Hub-Session"))
            try Data(#"{ "cart.title": "Einkaufswagen", "cart.count": "{count} Artikel" }"#.utf8)
                .write(to: URL(fileURLWithPath: directory + "/strings/de.json"))
            let result = await app.reloadConfiguration(trigger: "test")
            #expect(result.succeeded)
            #expect(result.engine?.changed.contains("cart") == true)
            let held = try await client.session(token, headers: [("Accept-Language", "de")])
            #expect(try held.json()["title"]?.stringValue == "Einkaufswagen")
            let fresh = try await client.view("hub:cart", headers: [("Accept-Language", "de")])
            #expect(try fresh.json()["title"]?.stringValue == "Einkaufswagen")
        }
    }

    @Test("a catalog that is not an object of strings is an error; references without locales are a warning")
    func catalogErrors() throws {
        var broken = Self.config()
        broken["strings/de.json"] = #"{ "cart.title": 3 }"#
        let directory = try broken.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let error = #expect(throws: ConfigurationError.self) { try ConfigLoader(environment: testEnvironment).load(directory: directory) }
        #expect(error?.issues.contains { $0.file == "strings/de.json" && $0.path == #"$["cart.title"]"# } == true, "\(String(describing: error))")

        var unlocalized = Self.config()
        unlocalized["server.json"] = #"{ "host": "127.0.0.1", "port": 0 }"#
        let plain = try unlocalized.write()
        defer { try? FileManager.default.removeItem(atPath: plain) }
        let loaded = try ConfigLoader(environment: testEnvironment).load(directory: plain)
        let warnings = loaded.warnings.map(\.description)
        #expect(warnings.contains { $0.hasPrefix("strings/en.json: $: ") && $0.contains("locales") }, "\(warnings)")
        #expect(warnings.contains { $0.hasPrefix("features/cart.json: $.operations[0]: ") && $0.contains("cart.title") }, "\(warnings)")
    }
}
