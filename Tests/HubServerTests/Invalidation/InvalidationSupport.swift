import CryptoExtras
import Foundation
import HubEngine
import HubHTTP
import HubModel
import HubServer
import HubSync
import HubTestSupport
import Testing

/// What the invalidation tests share: secrets, signing (with swift-crypto's HMAC, not the
/// server's code), a tagged upstream whose content changes on demand, and a config serving it.
enum Invalidation {
    static let secret = "first-invalidation-secret-of-40-bytes-xx"
    static let rotated = "second-invalidation-secret-of-40-bytes-x"

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970) }

    /// `sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">` under `secret`.
    static func signature(_ body: String, secret: String, timestamp: Int64) -> String {
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array("\(timestamp).\(body)".utf8), using: SymmetricKey(data: Array(secret.utf8)))
        return "sha256=" + mac.map { String(format: "%02x", $0) }.joined()
    }

    /// A signed `POST /invalidate` of `body`.
    static func post(
        _ client: HubClient, _ body: String, secret: String = secret, timestamp: Int64 = now()
    ) async throws -> LoopbackResponse {
        try await client.post(
            "/invalidate", body,
            headers: [("Hub-Signature-Timestamp", "\(timestamp)"),
                      ("Hub-Signature", signature(body, secret: secret, timestamp: timestamp))])
    }

    /// An upstream serving `/news/<id>` as one component titled `News <id> v<version>` (and 40
    /// unchanging rows for `long`), tagged
    /// `Surrogate-Key: news article-<id>` and `Cache-Tag: site`, fresh for 300 s.
    final class Source: Sendable {
        let version = Locked(1)
        let fetches = Locked(0)
        let upstream: TestUpstream

        init() throws {
            let version = self.version
            let fetches = self.fetches
            upstream = try TestUpstream { router in
                router.add(.get, "/news/{id}") { request, _ in
                    fetches.withLock { $0 += 1 }
                    let id = request.path.split(separator: "/").last.map(String.init) ?? "?"
                    let current = version.withLock { $0 }
                    // `long`: 40 rows more that never change (a patch of one title is then smaller than the view).
                    let rows = id == "long" ? (0..<40).map { #",{"id":"r\#($0)","text":{"title":"An unchanging row \#($0)"}}"# }.joined() : ""
                    var response = TestUpstream.json(#"{"body":[{"id":"n","text":{"title":"News \#(id) v\#(current)"}}\#(rows)]}"#)
                    response.headers["Cache-Control"] = "max-age=300"
                    response.headers["Surrogate-Key"] = "news article-\(id)"
                    response.headers["Cache-Tag"] = "site"
                    return response
                }
            }
        }

        func publish(_ next: Int) { version.withLock { $0 = next } }
        var fetchCount: Int { fetches.withLock { $0 } }
    }

    static func server(secrets: [String] = [secret]) -> String {
        let list = secrets.map { "\"\($0)\"" }.joined(separator: ", ")
        return """
            { "host": "127.0.0.1", "port": 0, "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" },
              "limits": { "sessionsPerClient": { "perSecond": 10000, "burst": 10000 } },
              "invalidation": { "secrets": [\(list)] } }
            """
    }

    /// `hub:news:<id>` reads `/news/<id>` from `source`, and keeps its view until told
    /// (`reload: never`): only an invalidation moves a held session on.
    static func config(_ source: Source, server: String = Invalidation.server()) -> TestConfig {
        var config = TestConfig(server: server)
        config.feature("news", """
            { "id": "news", "title": "News", "match": { "root": "hub:news" }, "reload": "never",
              "operations": [ { "kind": "remote", "url": "\(source.upstream.url("/news/{uri.2}"))" } ] }
            """)
        return config
    }

    /// The title of the view's one component.
    static func title(_ json: String) throws -> String? {
        try JSONParser().parse(Array(json.utf8))["body"]?.arrayValue?.first?["text"]?["title"]?.stringValue
    }

    static func title(_ response: LoopbackResponse) throws -> String? {
        try response.json()["body"]?.arrayValue?.first?["text"]?["title"]?.stringValue
    }
}
