import HubHTTP
import HubModel
import HubTestSupport
import Testing

/// `GET /view?uri=` of a chain with a cached remote operation: the memo's answer is shared by
/// every open only when the upstream URL is the same for every session. A URL that names the
/// session (`{session}`) is fetched, and answered, per session.
@Suite("Remote content shared across opens only when its URL is")
struct RemoteOpenSharingTests {
    /// An upstream whose rows name the `s` query value it was asked with, cacheable for a minute.
    static func upstream() throws -> TestUpstream {
        try TestUpstream { router in
            router.add(.get, "/rows") { request, _ in
                let session = request.queryValues("s").first ?? "none"
                var response = TestUpstream.json(#"{"body":[{"id":"row","text":{"title":"for \#(session)"}}]}"#)
                response.headers.add(name: "Cache-Control", value: "max-age=60")
                return response
            }
        }
    }

    static func config(url: String) -> TestConfig {
        var config = TestConfig()
        config.feature(
            "rows",
            #"{"id": "rows", "title": "Rows", "match": {"uri": "hub:rows"}, "operations": [{"kind": "remote", "url": "\#(url)"}]}"#)
        return config
    }

    static func title(_ response: LoopbackResponse) throws -> String? {
        try response.json()["body"]?.arrayValue?.first?["text"]?["title"]?.stringValue
    }

    @Test("a URL with {session}: every open gets its own session's rows, fetched for it")
    func sessionURL() async throws {
        let upstream = try Self.upstream()
        defer { upstream.stop() }
        try await withHub(Self.config(url: "\(upstream.base)/rows?s={session}")) { client, _ in
            for _ in 0..<6 {
                let opened = try await client.view("hub:rows")
                let token = try #require(opened.header("Hub-Session"))
                let id = String(try #require(token.split(separator: ".").first))
                #expect(try Self.title(opened) == "for \(id)", "this session's rows, never another's")
            }
            #expect(upstream.log.count(path: "/rows") == 6)
        }
    }

    @Test("a URL without it: one fetch, and from the third open on the memo's answer")
    func sharedURL() async throws {
        let upstream = try Self.upstream()
        defer { upstream.stop() }
        try await withHub(Self.config(url: "\(upstream.base)/rows?s=all")) { client, _ in
            // The first open fetches; the second runs the chain on the cached response (whose
            // fingerprint the memo key names from then on) and fills the memo.
            _ = try await client.view("hub:rows")
            _ = try await client.view("hub:rows")
            for _ in 0..<5 {
                let opened = try await client.view("hub:rows")
                #expect(try Self.title(opened) == "for all")
                #expect(opened.header("Server-Timing")?.contains("(memo)") == true)
            }
            #expect(upstream.log.count(path: "/rows") == 1)
        }
    }
}
