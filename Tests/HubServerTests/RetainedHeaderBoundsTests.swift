import Foundation
import HubHTTP
import HubModel
import HubServer
import HubTestSupport
import Testing

/// What a session keeps of a request's headers (docs/CONFIG.md "Bounded by design"):
/// one value per server header (the last), `Hub-Client` at most 128 bytes and `Hub-Toggle` at
/// most 1 KiB (431 past them), and what it keeps counts in `hub_sessions_bytes`.
@Suite("Retained header bounds")
struct RetainedHeaderBoundsTests {
    /// A remote feature that forwards `Hub-Client`, `Hub-Toggle` and `X-Data`; the upstream
    /// answers with how many of each it got and their values, and logs them.
    static func withEchoHub(_ body: (HubClient, TestUpstream) async throws -> Void) async throws {
        let upstream = try TestUpstream { request in
            let names = ["hub-client", "hub-toggle", "x-data"]
            let rows = names.map { name -> String in
                let values = request.headers.filter { $0.name.lowercased() == name }.map(\.value)
                let title = "\(values.count):" + (values.last.map { String($0.prefix(200)) } ?? "")
                return #"{ "id": "\#(name)", "text": { "title": "\#(title)" } }"#
            }
            return .respond(
                status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                body: Array(#"{ "title": "echo", "body": [\#(rows.joined(separator: ","))] }"#.utf8))
        }
        defer { upstream.stop() }
        var config = TestConfig(server: """
            { "host": "127.0.0.1", "port": 0, "log": { "level": "error" },
              "limits": { "sessionsPerClient": { "perSecond": 1000, "burst": 1000 } } }
            """)
        config.feature("echo", """
            { "id": "echo", "title": "Echo", "match": { "uri": "hub:echo" },
              "operations": [ { "kind": "remote", "url": "\(upstream.url("/echo"))",
                                "forwardHeaders": ["Hub-Client", "Hub-Toggle", "X-Data"] } ] }
            """)
        try await withHub(config) { client, _ in try await body(client, upstream) }
    }

    static func titles(_ response: LoopbackResponse) throws -> [String: String] {
        var titles: [String: String] = [:]
        for row in try response.json()["body"]?.arrayValue ?? [] {
            if let id = row["id"]?.stringValue { titles[id] = row["text"]?["title"]?.stringValue }
        }
        return titles
    }

    @Test("a repeated Hub-Client or Hub-Toggle keeps its last value only; a named header is forwarded as before (its first value)")
    func lastValueOnly() async throws {
        try await Self.withEchoHub { client, _ in
            let response = try await client.view(
                "hub:echo",
                headers: [("Hub-Client", "ios/1.0"), ("Hub-Toggle", "a=1"), ("Hub-Client", "android/2.0"),
                          ("Hub-Toggle", "b=2"), ("X-Data", "one"), ("X-Data", "two")])
            #expect(response.status == 200)
            let titles = try Self.titles(response)
            #expect(titles["hub-client"] == "1:android/2.0")
            #expect(titles["hub-toggle"] == "1:b=2")
            #expect(titles["x-data"] == "1:one")
        }
    }

    @Test("Hub-Client over 128 bytes or Hub-Toggle over 1 KiB is 431 headers_too_large naming the field; at the caps it is served")
    func caps() async throws {
        try await Self.withEchoHub { client, upstream in
            let client128 = "app/" + String(repeating: "c", count: 124)
            let toggle1024 = "t=" + String(repeating: "v", count: 1022)
            let atCaps = try await client.view("hub:echo", headers: [("Hub-Client", client128), ("Hub-Toggle", toggle1024)])
            #expect(atCaps.status == 200)
            #expect(try Self.titles(atCaps)["hub-client"] == "1:" + client128)
            let hits = upstream.log.all.count

            let longClient = try await client.view("hub:echo", headers: [("Hub-Client", client128 + "c")])
            try expectProblem(longClient, 431, "headers_too_large")
            #expect(try longClient.json()["detail"]?.stringValue?.contains("Hub-Client") == true)
            let longToggle = try await client.view("hub:echo", headers: [("Hub-Toggle", toggle1024 + "v")])
            try expectProblem(longToggle, 431, "headers_too_large")
            #expect(try longToggle.json()["detail"]?.stringValue?.contains("Hub-Toggle") == true)
            // An earlier occurrence counts too: the cap is per field line, not only the kept one.
            try expectProblem(
                try await client.view("hub:echo", headers: [("Hub-Client", client128 + "c"), ("Hub-Client", "ok/1")]),
                431, "headers_too_large")
            #expect(upstream.log.all.count == hits, "a refused request reaches no upstream")

            // Every endpoint that keeps a request refuses the same way.
            let session = try #require(atCaps.header("Hub-Session"))
            try expectProblem(try await client.session(session, headers: [("Hub-Client", client128 + "c")]), 431, "headers_too_large")
            try expectProblem(
                try await client.action(#"{"session":"\#(session)","action":"x:y"}"#, headers: [("Hub-Toggle", toggle1024 + "v")]),
                431, "headers_too_large")
            try expectProblem(
                try await client.get("/view/events?session=\(client.encode(session))", headers: [("Hub-Client", client128 + "c")]),
                431, "headers_too_large")
            // A long Hub-Connectivity is not refused (it is read as online), and not kept.
            #expect(try await client.view("hub:echo", headers: [("Hub-Connectivity", String(repeating: "x", count: 2000))]).status == 200)
        }
    }

    @Test("retained headers count in hub_sessions_bytes: a session keeping 16 KiB of X-Data counts that much more")
    func retainedBytesCounted() async throws {
        try await Self.withEchoHub { client, _ in
            let before = try await client.metric("hub_sessions_bytes") ?? 0
            let plain = try await client.view("hub:echo")
            #expect(plain.status == 200)
            let afterPlain = try await client.metric("hub_sessions_bytes") ?? 0
            let heavy = try await client.view(
                "hub:echo", headers: (0..<4).map { ("X-Data", "\($0)" + String(repeating: "d", count: 4095)) })
            #expect(heavy.status == 200)
            let afterHeavy = try await client.metric("hub_sessions_bytes") ?? 0
            let plainBytes = afterPlain - before
            let heavyBytes = afterHeavy - afterPlain
            #expect(heavyBytes - plainBytes >= 16 * 1024, "plain \(plainBytes), heavy \(heavyBytes)")
            #expect(heavyBytes - plainBytes < 24 * 1024, "plain \(plainBytes), heavy \(heavyBytes)")
        }
    }
}
