import Foundation
import HubEngine
import HubHTTP
import HubModel
import HubServer
import HubTestSupport
import Testing

/// `server.json` `locales`: each request's locale is negotiated once (`Hub-Locale` when
/// supported, else RFC 4647 lookup over `Accept-Language`, else the default), views say it in
/// `Content-Language` and vary on what it was negotiated from, and a session keeps the locale it
/// was opened with, across requests and rebuilds from its token (docs/LOCALIZATION.md).
@Suite("Locale negotiation")
struct LocaleNegotiationTests {
    /// English (the default), German, French and Canadian French; the home view's title and row
    /// come from the catalogs.
    static func config(gzipMinBytes: Int = 1024) -> TestConfig {
        var config = TestConfig(server: """
            { "host": "127.0.0.1", "port": 0, "log": { "level": "error" }, "gzip": { "minBytes": \(gzipMinBytes) },
              "limits": { "sessionsPerClient": { "perSecond": 1000, "burst": 1000 } },
              "locales": { "supported": ["en", "de", "fr", "fr-CA"], "default": "en" } }
            """)
        config.feature("home", """
            { "id": "home", "title": "Home", "match": { "root": "hub:home" },
              "operations": [ { "kind": "static", "json": { "title": { "$t": "home.title" },
                "body": [ { "id": "greeting", "text": { "title": { "$t": "home.greeting" } } } ] } } ] }
            """)
        config["strings/en.json"] = #"{ "home.title": "Home", "home.greeting": "Hello" }"#
        config["strings/de.json"] = #"{ "home.title": "Startseite", "home.greeting": "Hallo" }"#
        config["strings/fr.json"] = #"{ "home.title": "Accueil", "home.greeting": "Bonjour" }"#
        config["strings/fr-CA.json"] = #"{ "home.greeting": "Allô" }"#
        return config
    }

    static func title(_ response: LoopbackResponse) throws -> String? { try response.json()["title"]?.stringValue }

    static func varies(_ response: LoopbackResponse) -> [String] {
        response.headerValues("Vary").flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    @Test("Accept-Language: de-AT,de;q=0.9 gets the German view with Content-Language: de and Vary; a 304 and HEAD too")
    func germanByLookup() async throws {
        try await withHub(Self.config(gzipMinBytes: 0), transport: .socket) { client, _ in
            let headers = [("Accept-Language", "de-AT,de;q=0.9"), ("Accept-Encoding", "gzip")]
            let view = try await client.view("hub:home", headers: [("Accept-Language", "de-AT,de;q=0.9")])
            #expect(view.status == 200, "\(view)")
            #expect(try Self.title(view) == "Startseite")
            #expect(try view.json().component("greeting")?["text"]?["title"]?.stringValue == "Hallo")
            #expect(view.header("Content-Language") == "de")
            // One Vary field naming what the locale was negotiated from and the encoding.
            #expect(view.headerValues("Vary").count == 1, "\(view.headers)")
            #expect(Set(Self.varies(view)) == ["Accept-Language", "Hub-Locale", "Accept-Encoding"], "\(view.headers)")

            let etag = try #require(view.header("ETag"))
            let again = try await client.view("hub:home", headers: [("Accept-Language", "de-AT,de;q=0.9"), ("If-None-Match", etag)])
            #expect(again.status == 304, "\(again)")
            #expect(Set(Self.varies(again)).isSuperset(of: ["Accept-Language", "Hub-Locale"]), "\(again.headers)")
            #expect(again.header("Content-Language") == nil, "a 304 carries no representation metadata")

            let head = try await client.send("HEAD", "/view?uri=hub%3Ahome", headers: headers)
            #expect(head.status == 200)
            #expect(head.header("Content-Language") == "de")
            #expect(Set(Self.varies(head)).isSuperset(of: ["Accept-Language", "Hub-Locale", "Accept-Encoding"]))
        }
    }

    @Test("Hub-Locale wins over Accept-Language when supported; an unsupported one is ignored")
    func hubLocaleWins() async throws {
        try await withHub(Self.config(), transport: .socket) { client, _ in
            let asked = try await client.view("hub:home", headers: [("Hub-Locale", "DE"), ("Accept-Language", "fr")])
            #expect(try Self.title(asked) == "Startseite")
            #expect(asked.header("Content-Language") == "de", "the supported tag as configured")
            let unsupported = try await client.view("hub:home", headers: [("Hub-Locale", "ja"), ("Accept-Language", "fr")])
            #expect(unsupported.header("Content-Language") == "fr")
            #expect(try Self.title(unsupported) == "Accueil")
        }
    }

    @Test(
        "q-values, q=0, case, truncation and the default",
        arguments: [
            ("en;q=0.5, de;q=0.8", "de"), ("de;q=0, en;q=0.1", "en"), ("de-AT, de;q=0", "en"), ("DE-at", "de"),
            ("fr-CA-x-private", "fr-CA"), ("fr-BE;q=0.9, fr-CA;q=0.4", "fr"), ("ja, zh", "en"), ("*", "en"),
            ("", "en"), ("de;q=2, fr;q=x, en;q=0.2", "en"), ("pt-BR, de-CH;q=0.3", "de"),
        ])
    func lookup(header: String, expected: String) async throws {
        try await withHub(Self.config()) { client, _ in
            let view = try await client.view("hub:home", headers: header.isEmpty ? [] : [("Accept-Language", header)])
            #expect(view.header("Content-Language") == expected, "Accept-Language: \(header)")
        }
    }

    @Test("a held session keeps the locale it was opened with: later requests, actions, and a rebuild from its token")
    func sessionKeepsLocale() async throws {
        let config = Self.config()
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let token = try await withHub(directory: directory, transport: .socket) { client, _ in
            let opened = try await client.view("hub:home", headers: [("Accept-Language", "de")])
            let token = try #require(opened.header("Hub-Session"))
            for headers in [[("Accept-Language", "en")], [("Hub-Locale", "fr")], []] {
                let held = try await client.session(token, headers: headers)
                #expect(held.status == 200)
                #expect(try Self.title(held) == "Startseite", "\(headers)")
                #expect(held.header("Content-Language") == "de")
            }
            let action = try await client.action(#"{"session":"\#(token)","action":"hub:reload"}"#, headers: [("Accept-Language", "en")])
            #expect(action.status == 200, "\(action)")
            #expect(try action.json()["view"]?["title"]?.stringValue == "Startseite")
            #expect(action.header("Content-Language") == "de")
            return token
        }
        // Another server with the same keys rebuilds it from the token, in German still.
        try await withHub(directory: directory, transport: .socket) { client, _ in
            let rebuilt = try await client.session(token, headers: [("Accept-Language", "en"), ("Hub-Locale", "en")])
            #expect(rebuilt.status == 200, "\(rebuilt)")
            #expect(try Self.title(rebuilt) == "Startseite")
            #expect(rebuilt.header("Content-Language") == "de")
            #expect(rebuilt.header("Hub-Session") == token, "the same token names the rebuilt session")
        }
    }

    @Test("without locales nothing changes: no Content-Language, no Vary on the language, references left as written")
    func withoutLocales() async throws {
        var config = TestConfig(server: #"{ "host": "127.0.0.1", "port": 0, "log": { "level": "error" }, "gzip": { "minBytes": 0 } }"#)
        config.feature("home", #"{ "id": "home", "title": "Home", "match": { "root": "hub:home" }, "operations": [ { "kind": "static", "json": { "body": [ { "id": "a", "text": { "title": "A" } } ] } } ] }"#)
        try await withHub(config, transport: .socket) { client, _ in
            let view = try await client.view("hub:home", headers: [("Accept-Language", "de"), ("Hub-Locale", "de")])
            #expect(view.status == 200)
            #expect(view.header("Content-Language") == nil)
            #expect(Self.varies(view) == ["Accept-Encoding"], "\(view.headers)")
            let token = try #require(view.header("Hub-Session"))
            #expect(token.split(separator: ".").count == 4, "a token without a locale keeps the four-part form")
        }
    }

    /// Writes the run's locale (and the factory's) into the view; memoizable without naming it.
    struct LocaleEcho: ContentOperation {
        let factoryLocale: String?
        var completesSynchronously: Bool { true }
        func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
            builder.body["echo"].title = "run \(context.locale ?? "none"), factory \(factoryLocale ?? "none")"
        }
        func memoizationKey(context: ContentContext) -> String? { "echo" }
        func memoizationKeyLifetime(context: ContentContext) -> MemoizationKeyLifetime { .untilDefinitionsChange }
    }

    @Test("Swift operations see the negotiated locale; the memo keeps one run per locale though their key does not name it")
    func swiftOperations() async throws {
        var config = Self.config()
        config.feature("echo", #"{ "id": "echo", "title": "Echo", "match": { "root": "hub:echo" }, "operations": [ { "kind": "swift", "name": "echo" } ] }"#)
        var extensions = SwiftExtensions()
        extensions.registerOperation("echo") { context in LocaleEcho(factoryLocale: context.request.locale) }
        try await withHub(config, extensions: extensions) { client, _ in
            for _ in 0..<2 {
                for (header, locale) in [("de-AT", "de"), ("en", "en"), ("fr-CA", "fr-CA")] {
                    let view = try await client.view("hub:echo", headers: [("Accept-Language", header)])
                    #expect(try view.json().component("echo")?["text"]?["title"]?.stringValue == "run \(locale), factory \(locale)")
                }
            }
        }
    }

    @Test("CORS: a browser may send Hub-Locale (the default Hub-*), reads Content-Language, and Vary names Origin too, in one field")
    func cors() async throws {
        let origin = "http://127.0.0.1:5173"
        var config = Self.config(gzipMinBytes: 0)
        config["server.json"] = """
            { "host": "127.0.0.1", "port": 0, "log": { "level": "error" }, "gzip": { "minBytes": 0 },
              "cors": { "origins": ["\(origin)"] }, "locales": { "supported": ["en", "de"], "default": "en" } }
            """
        try await withHub(config, transport: .socket) { client, _ in
            let preflight = try await client.send("OPTIONS", "/view?uri=hub%3Ahome", headers: [
                ("Origin", origin), ("Access-Control-Request-Method", "GET"), ("Access-Control-Request-Headers", "hub-locale"),
            ])
            #expect(preflight.status == 204, "\(preflight)")
            #expect(preflight.header("Access-Control-Allow-Headers") == "hub-locale")
            let view = try await client.view("hub:home", headers: [("Origin", origin), ("Hub-Locale", "de")])
            #expect(view.header("Content-Language") == "de")
            #expect(view.header("Access-Control-Allow-Origin") == origin)
            #expect(view.headerValues("Vary").count == 1, "\(view.headers)")
            #expect(Set(Self.varies(view)) == ["Accept-Language", "Hub-Locale", "Accept-Encoding", "Origin"], "\(view.headers)")
        }
    }

    @Test("an event stream says the session's locale")
    func streamLocale() async throws {
        try await withHub(Self.config(), transport: .socket) { client, _ in
            let opened = try await client.view("hub:home", headers: [("Hub-Locale", "fr-CA")])
            #expect(try opened.json().component("greeting")?["text"]?["title"]?.stringValue == "Allô")
            #expect(try Self.title(opened) == "Accueil", "fr-CA falls back to fr")
            let token = try #require(opened.header("Hub-Session"))
            let stream = try await client.events(session: token)
            defer { stream.close() }
            #expect(stream.status == 200)
            #expect(stream.headers["Content-Language"] == "fr-CA")
        }
    }
}
