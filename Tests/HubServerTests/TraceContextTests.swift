import Foundation
import HubHTTP
import HubModel
import HubOperations
import HubServer
import HubSync
import HubTestSupport
import Testing

/// W3C trace context in, the trace id in the request's log lines, a child span
/// on every upstream fetch; item 7: the access log setting.
@Suite("Trace context and access log")
struct TraceContextTests {
    static let clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
    static let clientParent = "00f067aa0ba902b7"

    /// A hub with `log.access` as given, logging into `lines`, with a feature of two remote
    /// operations on `upstream` and a failing one (port 1) that is recovered.
    static func withLoggedHub(
        upstream: String, access: String, _ body: (HubClient, Locked<[String]>) async throws -> Void
    ) async throws {
        var config = TestConfig(server: """
            { "host": "127.0.0.1", "port": 0, "timeouts": { "drainSeconds": 1 },
              "log": { "level": "debug", "access": \(access) } }
            """)
        config.feature("traced", """
            { "id": "traced", "title": "T", "match": { "root": "hub:traced" },
              "operations": [ { "kind": "remote", "url": "\(upstream)/a" }, { "kind": "remote", "url": "\(upstream)/b" },
                              { "kind": "remote", "url": "http://127.0.0.1:1/down", "optional": true },
                              { "kind": "recover", "json": { "title": "recovered" } } ] }
            """)
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let lines = Locked<[String]>([])
        let logger = JSONLogger(level: .debug, format: .json) { line in lines.withLock { $0.append(line) } }
        let app = try HubApplication(configuration: try ConfigLoader(environment: testEnvironment).load(directory: directory), logger: logger)
        try app.start()
        do {
            try await body(HubClient(port: app.port), lines)
            await app.shutdown()
        } catch {
            await app.shutdown()
            throw error
        }
    }

    static func routes(_ router: inout Router) {
        router.add(.get, "/a") { _, _ in TestUpstream.json(#"{"body":[{"id":"a"}]}"#) }
        router.add(.get, "/b") { _, _ in TestUpstream.json(#"{"body":[{"id":"b"}]}"#) }
    }

    /// `00-<trace>-<span>-<flags>` split, or nil when not of that shape.
    static func parts(_ traceParent: String?) -> (trace: String, span: String, flags: String)? {
        guard let pieces = traceParent?.split(separator: "-"), pieces.count == 4, pieces[0] == "00",
            pieces[1].count == 32, pieces[2].count == 16, pieces[3].count == 2,
            pieces.dropFirst().allSatisfy({ $0.allSatisfy { "0123456789abcdef".contains($0) } })
        else { return nil }
        return (String(pieces[1]), String(pieces[2]), String(pieces[3]))
    }

    @Test("a valid traceparent is continued: each upstream fetch gets a child span of the same trace, tracestate follows")
    func continued() async throws {
        try await withUpstream(Self.routes) { upstream in
            try await Self.withLoggedHub(upstream: upstream.base, access: #"{ "mode": "all" }"#) { client, lines in
                let response = try await client.view(
                    "hub:traced", headers: [("traceparent", "00-\(Self.clientTrace)-\(Self.clientParent)-01"), ("tracestate", "congo=t61rcWkgMzE")])
                #expect(response.status == 200, "\(response)")
                let a = try #require(Self.parts(upstream.log.hits(path: "/a").last?.header("traceparent")))
                let b = try #require(Self.parts(upstream.log.hits(path: "/b").last?.header("traceparent")))
                #expect(a.trace == Self.clientTrace && b.trace == Self.clientTrace)
                #expect(a.flags == "01" && b.flags == "01", "the sampled flag is kept")
                #expect(a.span != Self.clientParent && b.span != Self.clientParent, "a new span, not the client's")
                #expect(a.span != b.span, "one child span per fetch")
                #expect(upstream.log.hits(path: "/a").last?.header("tracestate") == "congo=t61rcWkgMzE")

                #expect(await eventually {
                    let all = lines.withLock { $0 }
                    return all.contains { $0.contains(#""msg":"request""#) && $0.contains(#""trace_id":"\#(Self.clientTrace)""#) }
                        && all.contains { $0.contains("remote operation failed") && $0.contains(#""trace_id":"\#(Self.clientTrace)""#) }
                }, "the access line and the operation's failure line carry the trace id: \(lines.withLock { $0 })")
            }
        }
    }

    @Test("an absent or invalid traceparent starts a new trace (and drops tracestate)", arguments: [
        nil, "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", "garbage",
    ])
    func started(traceParent: String?) async throws {
        try await withUpstream(Self.routes) { upstream in
            try await Self.withLoggedHub(upstream: upstream.base, access: #"{ "mode": "all" }"#) { client, lines in
                var headers = [("tracestate", "congo=t61rcWkgMzE")]
                if let traceParent { headers.append(("traceparent", traceParent)) }
                #expect(try await client.view("hub:traced", headers: headers).status == 200)
                let a = try #require(Self.parts(upstream.log.hits(path: "/a").last?.header("traceparent")))
                #expect(a.trace != Self.clientTrace.lowercased() && a.trace != String(repeating: "0", count: 32), "\(a)")
                #expect(a.span != String(repeating: "0", count: 16))
                #expect(upstream.log.hits(path: "/a").last?.header("tracestate") == nil)
                let b = try #require(Self.parts(upstream.log.hits(path: "/b").last?.header("traceparent")))
                #expect(b.trace == a.trace, "the same new trace for every fetch of the request")
                #expect(await eventually {
                    lines.withLock { $0 }.contains { $0.contains(#""msg":"request""#) && $0.contains(#""trace_id":"\#(a.trace)""#) }
                })
            }
        }
    }

    @Test("over a socket, a generated X-Request-Id is the request_id of the request's log line; an insane one is replaced, a sane one echoed")
    func requestIdInHeadAndLog() async throws {
        try await withUpstream(Self.routes) { upstream in
            try await Self.withLoggedHub(upstream: upstream.base, access: #"{ "mode": "all" }"#) { client, lines in
                let generated = try await client.get("/health")
                let insane = try await client.get("/health", headers: [("X-Request-Id", "two words")])
                let tooLong = try await client.get("/health", headers: [("X-Request-Id", String(repeating: "a", count: 129))])
                let sane = try await client.get("/health", headers: [("X-Request-Id", "client-7")])
                #expect(sane.header("X-Request-Id") == "client-7")
                var ids: [String] = []
                for response in [generated, insane, tooLong] {
                    let id = try #require(response.header("X-Request-Id"))
                    // The process's 16 hex digits, '-', the counter in hex.
                    let parts = id.split(separator: "-")
                    #expect(parts.count == 2 && parts[0].utf8.count == 16 && !parts[1].isEmpty, "\(id)")
                    #expect(id.utf8.allSatisfy { $0 == UInt8(ascii: "-") || ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }, "\(id)")
                    ids.append(id)
                }
                #expect(Set(ids).count == 3)
                for id in ids + ["client-7"] {
                    #expect(await eventually {
                        lines.withLock { $0 }.contains { $0.contains(#""msg":"request""#) && $0.contains(#""request_id":"\#(id)""#) }
                    }, "the log line names the id the head carried: \(id)")
                }
            }
        }
    }

    @Test("log.access: errors (slow too), sampled, off, all")
    func accessModes() async throws {
        try await withUpstream(Self.routes) { upstream in
            func accessLines(_ access: String) async throws -> [String] {
                var result: [String] = []
                try await Self.withLoggedHub(upstream: upstream.base, access: access) { client, lines async throws in
                    #expect(try await client.get("/health").status == 200)
                    #expect(try await client.get("/nowhere").status == 404)
                    #expect(try await client.get("/ready").status == 200)
                    // No wait: the access line is logged by the middleware's after-hook, before the
                    // response is written, and this logger's sink is called in place.
                    result = lines.withLock { $0 }.filter { $0.contains(#""msg":"request""#) }
                }
                return result
            }
            let errors = try await accessLines(#"{ "mode": "errors" }"#)
            #expect(errors.count == 1 && errors.first?.contains(#""status":404"#) == true, "\(errors)")
            let slow = try await accessLines(#"{ "mode": "errors", "slowMs": 0 }"#)
            #expect(slow.count == 3, "every request is at least 0 ms slow: \(slow)")
            let sampledAll = try await accessLines(#"{ "mode": "sampled", "sampleRatio": 1 }"#)
            #expect(sampledAll.count == 3)
            let sampledNone = try await accessLines(#"{ "mode": "sampled", "sampleRatio": 0 }"#)
            #expect(sampledNone.count == 1, "errors are always logged")
            #expect(try await accessLines(#"{ "mode": "off" }"#).isEmpty)
            #expect(try await accessLines(#"{ "mode": "all" }"#).count == 3)

            var bad = TestConfig(server: #"{ "log": { "access": { "mode": "some", "sampleRatio": 2 } } }"#)
            bad.feature("x", #"{ "id": "x", "title": "T", "match": { "root": "hub:x" }, "operations": [] }"#)
            let directory = try bad.write()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let error = try #require(throws: ConfigurationError.self) { try ConfigLoader(environment: [:]).load(directory: directory) }
            #expect(error.issues.contains { $0.path == "$.log.access.mode" })
            #expect(error.issues.contains { $0.path == "$.log.access.sampleRatio" })
        }
    }
}
