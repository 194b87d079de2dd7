import HubTestSupport
import HubUpstream
import Testing

/// The HTTP cache honours `Vary` (``VaryRule``): a response that varies on request headers the
/// client sent is stored per their values (part of the cache key) and served only to requests
/// that send the same; one that varies on a header it did not send, or `*`, is not stored and
/// is counted (`uncacheableVary`).
@Suite("Vary in the HTTP cache")
struct VaryCacheTests {
    /// Answers in the language of the request's `Accept-Language`, fresh for a minute.
    static func handler(vary: String) -> TestUpstream.Handler {
        { request in
            .respond(
                status: 200, headers: [("Cache-Control", "max-age=60"), ("Vary", vary)],
                body: Array((request.header("accept-language") ?? "none").utf8))
        }
    }

    @Test("Vary: Accept-Language with it sent: one entry per value, never served across them")
    func perValue() async throws {
        try await withUpstream(handler: Self.handler(vary: "Accept-Language, Accept-Encoding")) { upstream, client in
            for _ in 0..<3 {
                for language in ["de", "en"] {
                    let response = try await client.send(
                        UpstreamRequest(url: upstream.url("/page"), headers: [("Accept-Language", language)]))
                    #expect(response.body == Array(language.utf8))
                    #expect(response.freshUntil != nil)
                }
            }
            #expect(upstream.log.count(path: "/page") == 2)
            #expect(client.statistics.cacheHits == 4)
            #expect(client.statistics.uncacheableVary == 0)
        }
    }

    @Test("Vary on a header not sent (Cookie), or *: not stored, no freshness, counted", arguments: ["Cookie", "*", "accept-language"])
    func notSent(vary: String) async throws {
        try await withUpstream(handler: Self.handler(vary: vary)) { upstream, client in
            for _ in 0..<3 {
                let response = try await client.send(UpstreamRequest(url: upstream.url("/page")))
                #expect(response.body == Array("none".utf8))
                #expect(response.freshUntil == nil, "nothing may reuse it as fresh (the chain memo neither)")
            }
            #expect(upstream.log.count(path: "/page") == 3)
            #expect(client.statistics.uncacheableVary == 3)
        }
    }

    @Test("VaryRule: names compared case-insensitively; Accept-Encoding and Host count as sent; empty members ignored")
    func rule() {
        let sent = [(name: "Accept-Language", value: "de")]
        #expect(VaryRule.allowsStoring(responseHeaders: [("vary", "accept-language, , ACCEPT-ENCODING, host")], requestHeaders: sent))
        #expect(VaryRule.allowsStoring(responseHeaders: [], requestHeaders: []))
        #expect(!VaryRule.allowsStoring(responseHeaders: [("Vary", "Accept-Language"), ("Vary", "User-Agent")], requestHeaders: sent))
        #expect(!VaryRule.allowsStoring(responseHeaders: [("Vary", " * ")], requestHeaders: sent))
    }
}
