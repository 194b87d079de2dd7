import Foundation
import HubEngine
import HubHTTP
import HubModel
import HubServer
import HubSync
import HubTestSupport
import Testing

/// Reloads that cannot stall the server: a reload with nothing changed re-runs nothing (templated
/// `file:` features included), stale sessions re-run on their next request, and sessions followed
/// over SSE re-run at once through a pool of `reload.maxConcurrentReruns`.
@Suite("Reloads re-run only what changed, paced")
struct ReloadPacingTests {
    static func pagedConfig() -> TestConfig {
        var config = TestConfig(server: """
            { "host": "127.0.0.1", "port": 0, "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" } }
            """)
        config.feature("paged", """
            { "id": "paged", "title": "Paged", "match": { "root": "hub:paged" },
              "operations": [ { "kind": "remote", "url": "file:content/pages/page-{page}.json", "paginated": true },
                              { "kind": "swift", "name": "stamp" } ] }
            """)
        config["content/pages/page-0.json"] = #"{ "body": [ { "id": "p0", "text": { "title": "Page 0" } } ] }"#
        config["content/pages/page-1.json"] = #"{ "body": [ { "id": "p1", "text": { "title": "Page 1" } } ] }"#
        return config
    }

    /// A Swift operation that is not memoizable, so every session of the feature is stored.
    static func extensions() -> SwiftExtensions {
        var extensions = SwiftExtensions()
        extensions.registerOperation("stamp") { _ in StampOperation() }
        return extensions
    }

    @Test("a reload with nothing changed re-runs no session, a templated file: feature included; a changed file under its directory re-runs it")
    func noOpReloadRerunsNothing() async throws {
        let directory = try Self.pagedConfig().write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withHub(directory: directory, extensions: Self.extensions(), transport: .socket) { client, app in
            var tokens: [String] = []
            for _ in 0..<5 { tokens.append(try await ConfigReloadTests.usedSession(client, "hub:paged")) }
            let stream = try await client.events(session: tokens[0])
            defer { stream.close() }
            _ = try await stream.next()
            for _ in 0..<3 {
                let report = try #require(await app.reloadConfiguration(trigger: "test").engine)
                #expect(report.changed.isEmpty)
                #expect(report.sessionsRerun == 0 && report.sessionsStale == 0)
            }
            for token in tokens { #expect(try await client.session(token).status == 200) }
            #expect(try await client.metric(#"hub_reload_reruns_total{mode="eager"}"#) == 0)
            #expect(try await client.metric(#"hub_reload_reruns_total{mode="lazy"}"#) == 0)

            // A page the request may choose changed: the feature changed.
            try ConfigReloadTests.save(#"{ "body": [ { "id": "p0", "text": { "title": "Page 0, edited" } } ] }"#,
                                       to: directory + "/content/pages/page-0.json")
            let report = try #require(await app.reloadConfiguration(trigger: "test").engine)
            #expect(report.changed == ["paged"])
            #expect(report.sessionsRerun == 1, "the listened session re-runs at once")
            #expect(report.sessionsStale == 4, "the others on their next request")
            #expect(try await stream.next().data.contains("Page 0, edited"))
            #expect(try await client.metric(#"hub_reload_reruns_total{mode="eager"}"#) == 1)
            #expect(try await client.session(tokens[1]).text.contains("Page 0, edited"))
            #expect(try await client.metric(#"hub_reload_reruns_total{mode="lazy"}"#) == 1)
        }
    }

    @Test("listened sessions re-run through a pool of reload.maxConcurrentReruns: never more upstream requests at once")
    func eagerRerunsAreBounded() async throws {
        let inFlight = Locked((now: 0, most: 0))
        let upstream = try TestUpstream { router in
            router.add(.get, "/item") { request, _ in
                inFlight.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                try? await Task.sleep(for: .milliseconds(30))
                inFlight.withLock { $0.now -= 1 }
                // The new URL (one per session: no two re-runs share a fetch) answers new content, so every listener is pushed a new view.
                let title = request.queryValues("v").first == "2" ? "R2" : "R1"
                return TestUpstream.json(#"{"body":[{"id":"r1","text":{"title":"\#(title)"}}]}"#)
            }
        }
        defer { upstream.stop() }
        var config = TrustedSessionTests.config(upstream: upstream.base, server: """
            { "host": "127.0.0.1", "port": 0, "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" },
              "reload": { "maxConcurrentReruns": 2 }, "limits": { "sseStreamsPerClient": 100 } }
            """)
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withHub(directory: directory, transport: .socket) { client, app in
            var streams: [SSEStream] = []
            defer { streams.forEach { $0.close() } }
            for _ in 0..<10 {
                let token = try #require(try await client.view("hub:remote").header("Hub-Session"))
                let stream = try await client.events(session: token)
                _ = try await stream.next()
                streams.append(stream)
            }
            inFlight.withLock { $0.most = 0 }
            config.feature("remote", """
                { "id": "remote", "title": "Remote", "match": { "uri": "hub:remote" },
                  "operations": [ { "kind": "remote", "url": "\(upstream.base)/item?v=2&s={session}" } ] }
                """)
            try ConfigReloadTests.save(config["features/remote.json"]!, to: directory + "/features/remote.json")
            let report = try #require(await app.reloadConfiguration(trigger: "test").engine)
            #expect(report.sessionsRerun == 10)
            for stream in streams { #expect(try await stream.next().data.contains("R2")) }  // every listener got the new view
            #expect(upstream.log.hits(path: "/item").filter { $0.target.contains("v=2") }.count == 10)
            #expect(inFlight.withLock { $0.most } <= 2, "at most maxConcurrentReruns re-runs at once")
            #expect(try await client.metric(#"hub_reload_reruns_total{mode="eager"}"#) == 10)
        }
    }
}

/// Not memoizable (no `isDeterministic`), so its feature's sessions are stored.
struct StampOperation: ContentOperation {
    var name: String { "stamp" }

    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        builder.setCustomDataValue(.string(context.sessionID), forKey: "stamp")
    }
}
