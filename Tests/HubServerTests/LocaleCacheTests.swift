import Foundation
import HubModel
import HubServer
import HubSync
import HubTestSupport
import Testing

/// Remote content in the user's language: `{locale}` URLs and `sendLocale` reach the upstream
/// with the negotiated locale, never the raw header; the HTTP cache, the chain memo and the
/// render cache keep one entry per locale (a bounded set), shared by every user of it; and the
/// HTTP cache honours `Vary` (docs/LOCALIZATION.md "Caches").
@Suite("Locale-keyed caches")
struct LocaleCacheTests {
    static let server = """
        { "host": "127.0.0.1", "port": 0, "log": { "level": "error" },
          "limits": { "sessionsPerClient": { "perSecond": 10000, "burst": 10000 } },
          "locales": { "supported": ["en", "de"], "default": "en" } }
        """

    /// An upstream that answers `/content/<locale>` and `/negotiated` (in the language of its
    /// `Accept-Language`, or `none`), cacheable for a minute, with `vary` as its `Vary` header.
    static func upstream(vary: String? = nil) throws -> TestUpstream {
        try TestUpstream { request in
            let language = request.path.hasPrefix("/content/")
                ? String(request.path.dropFirst("/content/".count)) : request.header("accept-language") ?? "none"
            var headers = [("Content-Type", "application/json"), ("Cache-Control", "public, max-age=60")]
            if let vary { headers.append(("Vary", vary)) }
            return .respond(
                status: 200, headers: headers,
                body: Array(#"{ "body": [ { "id": "row", "text": { "title": "in \#(language)" } } ] }"#.utf8))
        }
    }

    static func config(url: String, sendLocale: Bool = false) -> TestConfig {
        var config = TestConfig(server: server)
        config.feature("news", """
            { "id": "news", "title": "News", "match": { "root": "hub:news" },
              "operations": [ { "kind": "remote", "url": "\(url)", "sendLocale": \(sendLocale) } ] }
            """)
        return config
    }

    static func row(_ response: LoopbackResponse) throws -> String? {
        try response.json().component("row")?["text"]?["title"]?.stringValue
    }

    @Test("a {locale} URL is fetched once per locale and shared by every user of that locale, whatever their header")
    func localeURL() async throws {
        let upstream = try Self.upstream()
        defer { upstream.stop() }
        try await withHub(Self.config(url: upstream.url("/content/{locale}")), transport: .socket) { client, _ in
            let german = ["de-AT,de;q=0.9", "de-CH", "DE", "fr, de;q=0.5"]
            let english = ["en-GB", "en-US,en;q=0.9", "ja", ""]
            for round in 0..<3 {
                for header in german {
                    let view = try await client.view("hub:news", headers: [("Accept-Language", header)])
                    #expect(try Self.row(view) == "in de", "round \(round), \(header)")
                }
                for header in english {
                    let view = try await client.view("hub:news", headers: header.isEmpty ? [] : [("Accept-Language", header)])
                    #expect(try Self.row(view) == "in en", "round \(round), \(header)")
                }
            }
            #expect(upstream.log.count(path: "/content/de") == 1)
            #expect(upstream.log.count(path: "/content/en") == 1)
            #expect(upstream.log.all.allSatisfy { $0.header("accept-language") == nil }, "without sendLocale no Accept-Language")
        }
    }

    @Test("sendLocale sends the negotiated tag, not the client's header; one fetch per locale")
    func sendLocale() async throws {
        let upstream = try Self.upstream()
        defer { upstream.stop() }
        try await withHub(Self.config(url: upstream.url("/negotiated"), sendLocale: true), transport: .socket) { client, _ in
            for header in ["de-AT,de;q=0.9", "de-CH;q=0.8, x-klingon", "en-GB", "en"] {
                let view = try await client.view("hub:news", headers: [("Accept-Language", header)])
                #expect(try Self.row(view) == (header.hasPrefix("de") ? "in de" : "in en"), "\(header)")
            }
            let sent = upstream.log.hits(path: "/negotiated").map { $0.header("accept-language") }
            #expect(sent == ["de", "en"], "the negotiated tag, once per locale: \(sent)")
        }
    }

    @Test("an upstream that says Vary: Accept-Language is stored per language and never served across them")
    func varyAcceptLanguage() async throws {
        let upstream = try Self.upstream(vary: "Accept-Language")
        defer { upstream.stop() }
        try await withHub(Self.config(url: upstream.url("/negotiated"), sendLocale: true), transport: .socket) { client, _ in
            for _ in 0..<3 {
                for (header, expected) in [("de", "in de"), ("en", "in en"), ("de-AT", "in de"), ("en-US", "in en")] {
                    let view = try await client.view("hub:news", headers: [("Accept-Language", header)])
                    #expect(try Self.row(view) == expected, "\(header)")
                    #expect(view.header("Content-Language") == String(expected.dropFirst(3)))
                }
            }
            #expect(upstream.log.count(path: "/negotiated") == 2, "stored per Accept-Language value")
            #expect(try await client.metric(#"hub_upstream_uncacheable_total{reason="vary"}"#) == 0)
        }
    }

    @Test("Vary on a header HubServer does not send (Cookie, or Accept-Language without sendLocale) is not stored, nor memoized; counted")
    func varyNotSent() async throws {
        for vary in ["Cookie", "Accept-Language", "*"] {
            let upstream = try Self.upstream(vary: vary)
            defer { upstream.stop() }
            try await withHub(Self.config(url: upstream.url("/negotiated")), transport: .socket) { client, _ in
                for _ in 0..<3 {
                    let view = try await client.view("hub:news", headers: [("Accept-Language", "de")])
                    #expect(try Self.row(view) == "in none")
                }
                #expect(upstream.log.count(path: "/negotiated") == 3, "Vary: \(vary): fetched each time")
                #expect(try await client.metric(#"hub_upstream_uncacheable_total{reason="vary"}"#) == 3)
                #expect(try await client.metric(#"hub_cache_entries{cache="memo"}"#) == 0, "not memoized either")
            }
        }
        // The way around: Vary on a header the request does send (curl's Accept-Encoding) is stored.
        let upstream = try Self.upstream(vary: "Accept-Encoding")
        defer { upstream.stop() }
        try await withHub(Self.config(url: upstream.url("/negotiated")), transport: .socket) { client, _ in
            for _ in 0..<3 { _ = try await client.view("hub:news") }
            #expect(upstream.log.count(path: "/negotiated") == 1)
            #expect(try await client.metric(#"hub_upstream_uncacheable_total{reason="vary"}"#) == 0)
        }
    }

    @Test("many distinct Accept-Language values do not grow the caches: one memo entry and one fetch per locale")
    func boundedByLocales() async throws {
        let upstream = try Self.upstream(vary: "Accept-Language")
        defer { upstream.stop() }
        try await withHub(Self.config(url: upstream.url("/negotiated"), sendLocale: true), transport: .socket) { client, _ in
            // Two opens per locale first: the second fills the memo (as RemoteOpenSharingTests shows).
            for header in ["de", "de", "en", "en"] { _ = try await client.view("hub:news", headers: [("Accept-Language", header)]) }
            for index in 0..<60 {
                let header = index.isMultiple(of: 2)
                    ? "de-X\(index), de;q=0.\(index % 9 + 1)" : "en-Q\(index);q=0.9, x\(index)-y;q=0.1"
                let view = try await client.view("hub:news", headers: [("Accept-Language", header)])
                #expect(try Self.row(view) == (index.isMultiple(of: 2) ? "in de" : "in en"))
            }
            #expect(upstream.log.count(path: "/negotiated") == 2)
            let memo = try #require(try await client.metric(#"hub_cache_entries{cache="memo"}"#))
            #expect(memo <= 2, "one entry per locale, not per header: \(memo)")
            let render = try #require(try await client.metric(#"hub_cache_entries{cache="render"}"#))
            #expect(render <= 2, "\(render)")
        }
    }
}
