import Foundation
import HubHTTP
import HubModel
import HubTestSupport
import Testing

/// How `remote` operations treat what upstreams answer.
@Suite("Upstream contract")
struct UpstreamContractTests {
    static func upstream() throws -> TestUpstream {
        try TestUpstream { router in
            router.add(.get, "/empty") { _, _ in HTTPResponse(status: .ok, headers: ["Content-Type": "application/json"]) }
            router.add(.get, "/large") { _, _ in
                let rows = (0..<100).map { #"{"id":"row\#($0)","text":{"title":"A title long enough"}}"# }
                return TestUpstream.json("[" + rows.joined(separator: ",") + "]")
            }
            router.add(.get, "/etagged") { request, _ in
                var headers: HTTPHeaders = ["ETag": "\"v1\"", "Cache-Control": "no-cache"]
                if request.headers["If-None-Match"] == "\"v1\"" {
                    return HTTPResponse(status: .notModified, headers: headers)
                }
                headers.add(name: "Content-Type", value: "application/json")
                return HTTPResponse(status: .ok, headers: headers, body: .bytes(Array(#"[{"id":"tagged"}]"#.utf8)))
            }
            router.add(.get, "/dupkeys") { _, _ in
                TestUpstream.json(#"[{"id":"d","text":{"title":"first","title":"last"}}]"#)
            }
            router.add(.post, "/posted") { request, _ in
                TestUpstream.json(#"[{"id":"posted","text":{"title":"\#(request.headers["Content-Type"] ?? "none")"}}]"#)
            }
        }
    }

    static func config(_ base: String) -> TestConfig {
        var config = TestConfig(
            server: #"{ "host": "127.0.0.1", "port": 0, "upstream": { "maxResponseBytes": 2000 }, "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" } }"#)
        for (name, path, extra) in [
            ("empty", "/empty", ""), ("large", "/large", ""), ("dupkeys", "/dupkeys", ""), ("etagged", "/etagged", ""),
            ("posted", "/posted", #", "method": "POST""#),
        ] {
            config.feature(name, """
                { "id": "\(name)", "title": "\(name)", "match": { "root": "hub:\(name)" },
                  "operations": [ { "kind": "remote", "url": "\(base)\(path)"\(extra) } ] }
                """)
        }
        return config
    }

    private func withUpstreamHub(_ body: (HubClient, TestUpstream) async throws -> Void) async throws {
        let upstream = try Self.upstream()
        do {
            try await withHub(Self.config(upstream.base)) { client, _ in try await body(client, upstream) }
        } catch {
            upstream.stop()
            throw error
        }
        upstream.stop()
    }

    @Test("an empty body and a body over upstream.maxResponseBytes are 502")
    func emptyAndTooLarge() async throws {
        try await withUpstreamHub { client, _ in
            try expectProblem(try await client.view("hub:empty"), 502, "upstream_error")
            try expectProblem(try await client.view("hub:large"), 502, "upstream_error")
        }
    }

    @Test("an upstream ETag is revalidated with If-None-Match and a 304 reuses the cached body")
    func etagRevalidation() async throws {
        try await withUpstreamHub { client, upstream in
            let first = try await client.view("hub:etagged")
            #expect(first.status == 200, "\(first)")
            let second = try await client.view("hub:etagged")
            #expect(second.status == 200, "\(second)")
            #expect(try second.json().bodyIDs == ["tagged"])
            let hits = upstream.log.hits(path: "/etagged")
            #expect(hits.count == 2)
            #expect(hits.last?.header("If-None-Match") == "\"v1\"")
        }
    }

    @Test("upstream bodies with duplicate keys keep the last value")
    func duplicateKeys() async throws {
        try await withUpstreamHub { client, _ in
            let response = try await client.view("hub:dupkeys")
            #expect(response.status == 200, "\(response)")
            #expect(try response.json().component("d")?["text"]?["title"]?.stringValue == "last")
        }
    }

    @Test("method POST is used for the upstream request")
    func postMethod() async throws {
        try await withUpstreamHub { client, upstream in
            let response = try await client.view("hub:posted")
            #expect(response.status == 200, "\(response)")
            #expect(upstream.log.hits(path: "/posted").first?.method == "POST")
        }
    }
}
