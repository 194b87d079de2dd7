import Foundation
import HubEngine
import HubModel
import HubServer
import HubTestSupport
import Testing

/// Every refused invalidation changes nothing, is the right problem, and is counted; the ways
/// around each defence are refused too; a rotated secret is accepted; the endpoint is off
/// without a secret, and a short secret is a config error.
@Suite("Invalidation requests are signed, fresh and bounded")
struct InvalidationDefenceTests {
    @Test("unsigned, wrongly signed, re-signed, stale, future, oversized and too-large invalidations are refused and change nothing")
    func refusalsChangeNothing() async throws {
        let source = try Invalidation.Source()
        try await withHub(Invalidation.config(source), transport: .socket) { client, _ in
            let token = try #require(try await client.view("hub:news:1").header("Hub-Session"))
            let stream = try await client.events(session: token)
            defer { stream.close() }
            #expect(try Invalidation.title(try await stream.next().data) == "News 1 v1")
            source.publish(2)
            let fetches = source.fetchCount
            let body = #"{"tags":["article-1"]}"#
            let now = Invalidation.now()
            let signed = Invalidation.signature(body, secret: Invalidation.secret, timestamp: now)

            // No signature at all, or half of one.
            try expectProblem(try await client.post("/invalidate", body), 401, "invalid_signature")
            try expectProblem(
                try await client.post("/invalidate", body, headers: [("Hub-Signature", signed)]), 401, "invalid_signature")
            try expectProblem(
                try await client.post("/invalidate", body, headers: [("Hub-Signature-Timestamp", "\(now)")]), 401,
                "invalid_signature")
            // Another secret, and malformed values.
            try expectProblem(
                try await Invalidation.post(client, body, secret: "not-the-secret-but-long-enough-to-be-one"), 401,
                "invalid_signature")
            for header in ["sha256=", "sha256=zz", "md5=" + signed.dropFirst(7), String(signed.dropLast(2)), signed.uppercased()] {
                try expectProblem(
                    try await client.post(
                        "/invalidate", body, headers: [("Hub-Signature-Timestamp", "\(now)"), ("Hub-Signature", header)]),
                    401, "invalid_signature")
            }
            // The way around: a valid signature of another body, and the right MAC for another timestamp.
            let other = #"{"tags":["article-2"]}"#
            try expectProblem(
                try await client.post(
                    "/invalidate", body,
                    headers: [("Hub-Signature-Timestamp", "\(now)"),
                              ("Hub-Signature", Invalidation.signature(other, secret: Invalidation.secret, timestamp: now))]),
                401, "invalid_signature")
            try expectProblem(
                try await client.post(
                    "/invalidate", body, headers: [("Hub-Signature-Timestamp", "\(now - 1)"), ("Hub-Signature", signed)]),
                401, "invalid_signature")
            try expectProblem(
                try await client.post(
                    "/invalidate", body, headers: [("Hub-Signature-Timestamp", "+\(now)"), ("Hub-Signature", signed)]),
                401, "invalid_signature")
            // Replayed late, or dated ahead: signed right, more than 5 minutes off.
            try expectProblem(try await Invalidation.post(client, body, timestamp: now - 310), 401, "stale_signature")
            try expectProblem(try await Invalidation.post(client, body, timestamp: now + 310), 401, "stale_signature")
            // Over 64 KiB, signed right.
            let padding = String(repeating: " ", count: 64 * 1024)
            try expectProblem(try await Invalidation.post(client, body + padding), 413, "body_too_large")
            // More than 1,000 entries in all, signed right; also split over the lists.
            let tags = (0...1000).map { "\"t\($0)\"" }.joined(separator: ",")
            try expectProblem(try await Invalidation.post(client, #"{"tags":[\#(tags)]}"#), 422, "too_many_entries")
            let half = (0..<501).map { "\"t\($0)\"" }.joined(separator: ",")
            try expectProblem(
                try await Invalidation.post(client, #"{"tags":[\#(half)],"features":[\#(half)]}"#), 422, "too_many_entries")
            // Signed right, but not an invalidation.
            try expectProblem(try await Invalidation.post(client, #"{"tags":"#), 400, "invalid_json")
            try expectProblem(try await Invalidation.post(client, #"{"tags":"article-1"}"#), 422, "invalid_body")
            try expectProblem(try await Invalidation.post(client, #"{"tag":["article-1"]}"#), 422, "invalid_body")
            try expectProblem(try await Invalidation.post(client, #"{}"#), 422, "invalid_body")

            // Nothing changed: the session, the memo and the upstream cache still answer version 1.
            #expect(try Invalidation.title(try await client.session(token)) == "News 1 v1")
            #expect(try Invalidation.title(try await client.view("hub:news:1")) == "News 1 v1")
            #expect(source.fetchCount == fetches, "nothing went upstream")
            #expect(try await client.metric(#"hub_invalidations_total{result="invalid_signature"}"#) == 12)
            #expect(try await client.metric(#"hub_invalidations_total{result="stale_signature"}"#) == 2)
            #expect(try await client.metric(#"hub_invalidations_total{result="too_large"}"#) == 1)
            #expect(try await client.metric(#"hub_invalidations_total{result="too_many_entries"}"#) == 2)
            #expect(try await client.metric(#"hub_invalidations_total{result="accepted"}"#) == 0)
            #expect(try await client.metric("hub_invalidated_sessions_total") == 0)

            // Exactly 1,000 entries is accepted, and then the listener moves on.
            let thousand = (0..<999).map { "\"t\($0)\"" }.joined(separator: ",")
            let accepted = try await Invalidation.post(client, #"{"tags":[\#(thousand),"article-1"]}"#)
            #expect(accepted.status == 202, "\(accepted)")
            var title: String?
            while title != "News 1 v2" { title = try Invalidation.title(try await stream.next().data) }
            #expect(title == "News 1 v2")
        }
    }

    @Test("during a rotation both secrets verify, from server.json or HUB_INVALIDATION_SECRETS; a header may carry both signatures")
    func rotatedSecretsAreAccepted() async throws {
        let source = try Invalidation.Source()
        let config = Invalidation.config(source, server: Invalidation.server(secrets: [Invalidation.rotated, Invalidation.secret]))
        try await withHub(config, transport: .socket) { client, _ in
            #expect(try await Invalidation.post(client, #"{"tags":["a"]}"#, secret: Invalidation.secret).status == 202)
            #expect(try await Invalidation.post(client, #"{"tags":["a"]}"#, secret: Invalidation.rotated).status == 202)
            let body = #"{"tags":["b"]}"#
            let now = Invalidation.now()
            let both = Invalidation.signature(body, secret: "an-old-secret-nobody-lists-any-more-here", timestamp: now) + ", "
                + Invalidation.signature(body, secret: Invalidation.rotated, timestamp: now)
            let answer = try await client.post(
                "/invalidate", body, headers: [("Hub-Signature-Timestamp", "\(now)"), ("Hub-Signature", both)])
            #expect(answer.status == 202, "\(answer)")
        }
        var environment = testEnvironment
        environment["HUB_INVALIDATION_SECRETS"] = Invalidation.rotated + "," + Invalidation.secret
        let unsigned = Invalidation.config(source, server: TestConfig.defaultServer)
        try await withHub(unsigned, environment: environment, transport: .socket) { client, _ in
            let rotated = try await Invalidation.post(client, #"{"tags":["a"]}"#, secret: Invalidation.rotated)
            let first = try await Invalidation.post(client, #"{"tags":["a"]}"#, secret: Invalidation.secret)
            #expect(rotated.status == 202 && first.status == 202)
            let accepted = try await client.metric(#"hub_invalidations_total{result="accepted"}"#)
            #expect(accepted == 2)
        }
    }

    @Test("without a secret POST /invalidate is an unknown route; a secret under 32 bytes is a config error")
    func offWithoutSecret() async throws {
        let source = try Invalidation.Source()
        try await withHub(Invalidation.config(source, server: TestConfig.defaultServer), transport: .socket) { client, _ in
            try expectProblem(try await Invalidation.post(client, #"{"tags":["a"]}"#), 404, "route_not_found")
            let get = try await client.get("/invalidate")
            #expect(get.status == 404)
        }
        let short = Invalidation.config(source, server: Invalidation.server(secrets: ["too-short"]))
        let directory = try short.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(throws: ConfigurationError.self) {
            _ = try HubApplication.load(directory: directory, environment: testEnvironment)
        }
        var environment = testEnvironment
        environment["HUB_INVALIDATION_SECRETS"] = Invalidation.secret + ",short"
        let plain = try Invalidation.config(source, server: TestConfig.defaultServer).write()
        defer { try? FileManager.default.removeItem(atPath: plain) }
        #expect(throws: ConfigurationError.self) {
            _ = try HubApplication.load(directory: plain, environment: environment)
        }
    }
}
