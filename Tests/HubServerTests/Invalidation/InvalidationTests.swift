import Foundation
import HubEngine
import HubModel
import HubServer
import HubSync
import HubTestSupport
import Testing

/// `POST /invalidate` re-runs what used the content: held sessions followed over SSE get the
/// new view pushed, held sessions without listeners re-run on their next load (under
/// `reload: never`, which would otherwise keep their view), and new opens fetch again instead
/// of answering from the upstream cache or the chain memo.
@Suite("Invalidation re-runs what used the content")
struct InvalidationTests {
    /// Sessions of `hub:news:1`: `listened` followed over SSE (their first view read), one held
    /// without a listener; the upstream then publishes version 2, which no cache shows yet.
    struct Scene {
        let streams: [SSEStream]
        let quiet: String
    }

    static func scene(_ client: HubClient, _ source: Invalidation.Source, listened: Int = 3) async throws -> Scene {
        var streams: [SSEStream] = []
        for _ in 0..<listened {
            let token = try #require(try await client.view("hub:news:1").header("Hub-Session"))
            let stream = try await client.events(session: token)
            #expect(try Invalidation.title(try await stream.next().data) == "News 1 v1")
            streams.append(stream)
        }
        let quiet = try #require(try await client.view("hub:news:1").header("Hub-Session"))
        #expect(try Invalidation.title(try await client.session(quiet)) == "News 1 v1", "held: its token was used")
        source.publish(2)
        #expect(try Invalidation.title(try await client.view("hub:news:1")) == "News 1 v1", "the cache still answers")
        #expect(try Invalidation.title(try await client.session(quiet)) == "News 1 v1", "reload: never keeps the view")
        return Scene(streams: streams, quiet: quiet)
    }

    /// After an accepted invalidation of news 1: every listener's next view is version 2, the
    /// quiet session and a new open show version 2.
    static func expectNewContent(_ client: HubClient, _ scene: Scene) async throws {
        for stream in scene.streams {
            var title: String?
            while title != "News 1 v2" { title = try Invalidation.title(try await stream.next().data) }
            #expect(title == "News 1 v2")
        }
        #expect(try Invalidation.title(try await client.session(scene.quiet)) == "News 1 v2")
        #expect(try Invalidation.title(try await client.view("hub:news:1")) == "News 1 v2")
    }

    @Test(
        "a signed invalidation by tag, URL, URL prefix or Cache-Tag pushes the new view to every listener and re-runs the others on next use",
        arguments: [
            #"{"tags":["article-1"]}"#, #"{"tags":["site"]}"#, "{\"urls\":[\"URL\"]}", "{\"urlPrefixes\":[\"PREFIX\"]}",
        ])
    func invalidatesByContent(body template: String) async throws {
        let source = try Invalidation.Source()
        try await withHub(Invalidation.config(source), transport: .socket) { client, _ in
            let scene = try await Self.scene(client, source)
            defer { for stream in scene.streams { stream.close() } }
            let body = template
                .replacingOccurrences(of: "URL", with: source.upstream.url("/news/1"))
                .replacingOccurrences(of: "PREFIX", with: source.upstream.url("/news/"))
            let answer = try await Invalidation.post(client, body)
            #expect(answer.status == 202, "\(answer)")
            let matched = try answer.json()["matched"]
            #expect(matched?["sessions"]?.intValue == 4, "three listened, one quiet")
            #expect((matched?["cacheEntries"]?.intValue ?? 0) >= 2, "the upstream response and the memo entry")
            try await Self.expectNewContent(client, scene)
            #expect(try await client.metric(#"hub_invalidations_total{result="accepted"}"#) == 1)
            #expect(try await client.metric("hub_invalidated_sessions_total") == 4)
        }
    }

    @Test("a session marked stale while nobody listened re-runs for a listener that comes later, and for an action")
    func laterListenerAndAction() async throws {
        let source = try Invalidation.Source()
        try await withHub(Invalidation.config(source), transport: .socket) { client, _ in
            let scene = try await Self.scene(client, source, listened: 0)
            let other = try #require(try await client.view("hub:news:1").header("Hub-Session"))
            #expect(try Invalidation.title(try await client.session(other)) == "News 1 v1")
            let answer = try await Invalidation.post(client, #"{"tags":["article-1"]}"#)
            let matched = try answer.json()["matched"]?["sessions"]?.intValue
            #expect((matched ?? 0) >= 2, "\(answer)")
            let stream = try await client.events(session: scene.quiet)
            defer { stream.close() }
            var title: String?
            while title != "News 1 v2" { title = try Invalidation.title(try await stream.next().data) }
            #expect(title == "News 1 v2")
            let action = try await client.action(#"{"session":"\#(other)","action":"hub:nothing"}"#)
            #expect(action.status == 404, "no such action: performed nothing")
            let acted = try await client.action(#"{"session":"\#(other)","component":"n"}"#)
            #expect(acted.status == 200, "\(acted)")
            #expect(try acted.json()["view"]?["body"]?.arrayValue?.first?["text"]?["title"]?.stringValue == "News 1 v2")
        }
    }

    @Test("an invalidation that names other content changes nothing: no session re-runs, the cache keeps answering")
    func otherContentIsKept() async throws {
        let source = try Invalidation.Source()
        try await withHub(Invalidation.config(source), transport: .socket) { client, _ in
            let scene = try await Self.scene(client, source, listened: 1)
            defer { for stream in scene.streams { stream.close() } }
            let fetches = source.fetchCount
            let answer = try await Invalidation.post(
                client, #"{"tags":["article-2"],"urls":["\#(source.upstream.url("/news/2"))"],"features":["other"]}"#)
            #expect(answer.status == 202)
            #expect(try answer.json()["matched"]?["sessions"]?.intValue == 0)
            #expect(try answer.json()["matched"]?["cacheEntries"]?.intValue == 0)
            #expect(try Invalidation.title(try await client.session(scene.quiet)) == "News 1 v1")
            #expect(try Invalidation.title(try await client.view("hub:news:1")) == "News 1 v1")
            #expect(source.fetchCount == fetches, "nothing went upstream again")
        }
    }

    @Test("an invalidation by feature drops the memo and renderings of the feature's views: a Swift operation's new data reaches listeners")
    func invalidatesByFeature() async throws {
        let catalog = Locked("Catalog v1")
        var extensions = SwiftExtensions()
        extensions.registerOperation("catalog") { _ in CatalogOperation(title: catalog) }
        var config = TestConfig(server: Invalidation.server())
        config.feature("catalog", """
            { "id": "catalog", "title": "Catalog", "match": { "root": "hub:catalog" }, "reload": "never",
              "operations": [ { "kind": "swift", "name": "catalog" } ] }
            """)
        try await withHub(config, extensions: extensions, transport: .socket) { client, _ in
            let token = try #require(try await client.view("hub:catalog").header("Hub-Session"))
            let stream = try await client.events(session: token)
            defer { stream.close() }
            #expect(try Invalidation.title(try await stream.next().data) == "Catalog v1")
            catalog.withLock { $0 = "Catalog v2" }
            #expect(try Invalidation.title(try await client.view("hub:catalog")) == "Catalog v1", "memoized")
            let answer = try await Invalidation.post(client, #"{"features":["catalog"]}"#)
            #expect(answer.status == 202)
            #expect(try answer.json()["matched"]?["sessions"]?.intValue == 1)
            #expect((try answer.json()["matched"]?["cacheEntries"]?.intValue ?? 0) >= 1, "the memo entry")
            var title: String?
            while title != "Catalog v2" { title = try Invalidation.title(try await stream.next().data) }
            #expect(title == "Catalog v2")
            #expect(try Invalidation.title(try await client.view("hub:catalog")) == "Catalog v2")
        }
    }

    @Test("a listener on a patch stream gets the invalidated content as a patch")
    func patchListeners() async throws {
        let source = try Invalidation.Source()
        try await withHub(Invalidation.config(source), transport: .socket) { client, _ in
            let token = try #require(try await client.view("hub:news:long").header("Hub-Session"))
            let stream = try await client.events(
                target: "/view/events?session=\(client.encode(token))&patch=json-patch", headers: [])
            defer { stream.close() }
            #expect(try await stream.next().event == "view")
            source.publish(2)
            #expect(try await Invalidation.post(client, #"{"tags":["article-long"]}"#).status == 202)
            let patch = try await stream.next()
            #expect(patch.event == "patch")
            #expect(patch.data.contains("News long v2"))
            #expect(!patch.data.contains("An unchanging row"), "only the change")
        }
    }
}

/// A memoizable Swift operation (its key never changes) whose data lives outside the server.
struct CatalogOperation: ContentOperation {
    let title: Locked<String>

    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        let title = self.title.withLock { $0 }
        try builder.add(json: ["body": [["id": "c", "text": ["title": .string(title)]]]])
    }

    func memoizationKey(context: ContentContext) -> String? { "catalog" }
    func memoizationKeyLifetime(context: ContentContext) -> MemoizationKeyLifetime { .untilDefinitionsChange }
}
