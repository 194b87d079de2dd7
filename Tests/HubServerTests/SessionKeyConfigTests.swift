import Foundation
import HubEngine
import HubHTTP
import HubModel
import HubServer
import HubTestSupport
import Testing

/// Where session keys come from and what is refused at start-up; trusted proxy networks.
@Suite("Session keys and trusted proxies in the config")
struct SessionKeyConfigTests {
    @Test("sessions.keyFile: keys one per line (# comments skipped) verify another server's tokens; a missing file stops start-up")
    func keyFile() async throws {
        let upstream = try TrustedSessionTests.upstream()
        defer { upstream.stop() }
        var config = TrustedSessionTests.config(upstream: upstream.base, server: """
            { "host": "127.0.0.1", "port": 0, "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" },
              "sessions": { "keyFile": "secrets/session-keys" } }
            """)
        config["secrets/session-keys"] = "# the signing key first\n\(TrustedSessionTests.keyB)\n\(TrustedSessionTests.keyA)\n"
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let other = try TrustedSessionTests.config(upstream: upstream.base).write()
        defer { try? FileManager.default.removeItem(atPath: other) }
        let token = try await withHub(directory: other, environment: TrustedSessionTests.environment(keys: TrustedSessionTests.keyA), transport: .socket) { client, _ in
            try #require(try await client.view("hub:remote").header("Hub-Session"))
        }
        try await withHub(directory: directory, transport: .socket) { client, _ in
            #expect(try await client.session(token).status == 200, "key A, listed second in the file, verifies")
            let fresh = try #require(try await client.view("hub:remote").header("Hub-Session"))
            let keyB = try SessionKeys(texts: [TrustedSessionTests.keyB])
            #expect((try? SessionToken.verify(fresh, keys: keyB, now: EngineDefaults.systemWallClock(), maxAge: 60).get()) != nil,
                    "the first key signs")
        }
        try FileManager.default.removeItem(atPath: directory + "/secrets/session-keys")
        let error = #expect(throws: ConfigurationError.self) {
            _ = try HubApplication.load(directory: directory, environment: testEnvironment)
        }
        #expect(try #require(error).issues.contains { $0.path == "$.sessions.keyFile" })
    }

    @Test("a short or unreadable HUB_SESSION_KEYS and a bad trustedProxies entry are config errors naming them")
    func refusedAtStart() throws {
        var config = TestConfig(server: #"{ "trustedProxies": ["10.0.0.0/8", "10.0.0.0/33", "proxy.example"] }"#)
        config.feature("ok", #"{ "id": "ok", "title": "OK", "match": { "root": "hub:ok" }, "operations": [ { "kind": "static", "json": { "body": [] } } ] }"#)
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for keys in ["abcd", "\(TrustedSessionTests.keyA),not a key!"] {
            let error = #expect(throws: ConfigurationError.self) {
                _ = try ConfigLoader(environment: ["HUB_SESSION_KEYS": keys]).load(directory: directory)
            }
            let issues = try #require(error).issues
            #expect(issues.contains { $0.path == "HUB_SESSION_KEYS" }, "\(issues)")
            #expect(!issues.contains { $0.message.contains(keys) }, "a key is never echoed")
            #expect(issues.contains { $0.path == "$.trustedProxies[1]" } && issues.contains { $0.path == "$.trustedProxies[2]" })
            #expect(!issues.contains { $0.path == "$.trustedProxies[0]" })
        }
    }

    @Test("IP networks: IPv4 and IPv6 CIDRs, bare addresses, IPv4-mapped peers; garbage is refused")
    func networks() throws {
        let private10 = try #require(IPNetwork("10.0.0.0/8"))
        #expect(private10.contains("10.1.2.3") && private10.contains("::ffff:10.9.9.9"))
        #expect(!private10.contains("11.0.0.1") && !private10.contains("fd00::1") && !private10.contains("garbage"))
        let host = try #require(IPNetwork("127.0.0.1"))
        #expect(host.contains("127.0.0.1") && !host.contains("127.0.0.2"))
        let v6 = try #require(IPNetwork("fd00::/8"))
        #expect(v6.contains("fd12:3456::1") && !v6.contains("fe80::1") && !v6.contains("10.0.0.1"))
        let odd = try #require(IPNetwork("192.168.1.0/23"))
        #expect(odd.contains("192.168.0.7") && odd.contains("192.168.1.200") && !odd.contains("192.168.2.1"))
        for bad in ["", "10.0.0.0/33", "10.0.0.0/-1", "10.0.0.0/+8", "fd00::/129", "10.0.0/8", "host.example", "10.0.0.0/8/8"] {
            #expect(IPNetwork(bad) == nil, "\(bad)")
        }
    }
}
