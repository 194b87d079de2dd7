import Foundation
import HubDemo
import HubEngine
import HubModel
import HubServer
import HubTestSupport
import Testing

/// What one client can make the server keep is bounded: caches by bytes, todo lists by items,
/// pages per session; and a view larger than the SSE buffer still reaches its listener.
@Suite("Hardening: bounded memory")
struct BoundedMemoryTests {
    static let smallCaches = """
        { "host": "127.0.0.1", "port": 0, "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" },
          "sessions": { "maxPages": 3 }, "limits": { "actionsPerClient": { "perSecond": 1000, "burst": 1000 } },
          "caches": { "renderBytes": 65536, "memoBytes": 65536 } }
        """

    @Test("todo adds on one session: the list stops at its cap and the render cache stays within its budget")
    func todoAddsStayBounded() async throws {
        let store = TodoStore(maximumItems: 100)
        try await withHub(Hardening.config(server: Self.smallCaches), extensions: Hardening.extensions(store: store)) {
            client, _ in
            let opened = try await client.view("hub:todo")
            let session = try #require(opened.header("Hub-Session"))
            var performed = 0
            for index in 0..<300 {
                let response = try await client.action(
                    #"{"session":"\#(session)","action":"todo:add","custom":{"title":"item \#(index) \#(String(repeating: "x", count: 150))"}}"#)
                #expect(response.status == 200)
                if try response.json()["performed"]?.boolValue == true { performed += 1 }
                if index % 50 == 0 { _ = try await client.session(session) }  // a reload: a second use of the view
            }
            #expect(performed == 100 - TodoStoreStarter.count, "adds past the cap are not performed")
            let view = try await client.session(session).json()
            #expect(view["custom"]?["todoCount"]?.intValue == 100)
            let renderBytes = try #require(try await Hardening.metric(client, #"hub_cache_bytes{cache="render"}"#))
            #expect(renderBytes <= 65536)
        }
    }

    @Test("a session's todo list lives in the state store, and is deleted with the session's token")
    func todoListDeletedWithSession() async throws {
        try await withHub(Hardening.config(), extensions: Hardening.extensions()) { client, app in
            let opened = try await client.view("hub:todo")
            let session = try #require(opened.header("Hub-Session"))
            let id = String(try #require(session.split(separator: ".").first))
            let added = try await client.action(#"{"session":"\#(session)","action":"todo:add","custom":{"title":"kept"}}"#)
            #expect(try added.json()["performed"]?.boolValue == true)
            let stored = try await app.engine.stateStore.records(withPrefix: "session/\(id)/", now: 0)
            #expect(stored.map(\.0.rawValue) == ["session/\(id)/todo"])
            #expect(stored.first.map { String(decoding: $0.1.bytes, as: UTF8.self).contains("kept") } == true)
            #expect(try await client.delete("/view?session=\(session)").status == 204)
            #expect(try await app.engine.stateStore.records(withPrefix: "session/\(id)/", now: 0).isEmpty)
        }
    }

    @Test("distinct Hub-Components sets on a memoized view are cached per set, within the budget")
    func componentSetsAreCachedWithinBudget() async throws {
        try await withHub(Hardening.config(server: Self.smallCaches), extensions: Hardening.extensions()) { client, _ in
            let plain = try await client.view("hub:static", headers: [("Hub-Components", "default:row")])
            let again = try await client.view("hub:static", headers: [("Hub-Components", "default:row")])
            #expect(plain.header("ETag") == again.header("ETag"))
            #expect(try plain.json().component("b")?["component"]?["id"]?.stringValue == "default:row", "custom:card falls back")
            for index in 0..<400 {
                let response = try await client.view(
                    "hub:static", headers: [("Hub-Components", "default:row, n\(index):c\(String(repeating: "z", count: 100))")])
                #expect(response.status == 200)
            }
            let renderBytes = try #require(try await Hardening.metric(client, #"hub_cache_bytes{cache="render"}"#))
            let entries = try #require(try await Hardening.metric(client, #"hub_cache_entries{cache="render"}"#))
            #expect(renderBytes <= 65536)
            #expect(entries > 1, "component sets are cached")
        }
    }

    @Test("next pages stop at sessions.maxPages")
    func pagesAreCapped() async throws {
        try await withHub(Hardening.config(server: Self.smallCaches), extensions: Hardening.extensions()) { client, _ in
            let opened = try await client.view("hub:pages")
            let session = try #require(opened.header("Hub-Session"))
            var last: LoopbackResponse?
            for _ in 0..<6 { last = try await client.post("/view/next-page", #"{"session":"\#(session)"}"#) }
            let ids = try #require(last).json().bodyIDs
            #expect(ids == ["page-0", "page-1", "page-2", "page-3"])
        }
    }

    @Test("distinct memoizable views stay within caches.memoBytes; a view over half of it is not memoized")
    func memoStaysWithinBudget() async throws {
        var config = Hardening.config(server: Self.smallCaches)
        for index in 0..<40 {
            let rows = (0..<20).map { #"{ "id": "r\#($0)", "text": { "title": "\#(index) \#(String(repeating: "m", count: 100))" } }"# }
            config.feature("memo\(index)", """
                { "id": "memo\(index)", "title": "M", "match": { "uri": "hub:memo\(index)" },
                  "operations": [ { "kind": "static", "json": { "body": [ \(rows.joined(separator: ", ")) ] } } ] }
                """)
        }
        let rows = (0..<200).map { #"{ "id": "big\#($0)", "text": { "title": "\#(String(repeating: "b", count: 200))" } }"# }
        config.feature("big", """
            { "id": "big", "title": "Big", "match": { "uri": "hub:big" },
              "operations": [ { "kind": "static", "json": { "body": [ \(rows.joined(separator: ", ")) ] } } ] }
            """)
        try await withHub(config, extensions: Hardening.extensions()) { client, _ in
            for round in 0..<2 {
                for index in 0..<40 { #expect(try await client.view("hub:memo\(index)").status == 200, "round \(round)") }
                #expect(try await client.view("hub:big").status == 200)
            }
            let memoBytes = try #require(try await Hardening.metric(client, #"hub_cache_bytes{cache="memo"}"#))
            #expect(memoBytes > 0 && memoBytes <= 65536)
            // The big view (~45 KB of JSON, charged 3x) never fits half the budget: every open runs its chain.
            let big = try await client.view("hub:big")
            #expect(big.header("Server-Timing")?.contains("(memo)") == false)
        }
    }

    @Test("a 1.5 MB view arrives over SSE in one event")
    func largeViewOverSSE() async throws {
        var config = Hardening.config()
        let rows = (0..<3000).map { #"{ "id": "r\#($0)", "text": { "title": "\#(String(repeating: "w", count: 480))" } }"# }
        config["content/large.json"] = #"{ "body": [ \#(rows.joined(separator: ", ")) ] }"#
        config.feature("large", """
            { "id": "large", "title": "Large", "match": { "uri": "hub:large" },
              "operations": [ { "kind": "static", "file": "content/large.json" } ] }
            """)
        try await withHub(config, extensions: Hardening.extensions(), transport: .socket) { client, _ in
            let opened = try await client.view("hub:large")
            #expect(opened.body.count > 1_500_000)
            let session = try #require(opened.header("Hub-Session"))
            let stream = try await client.events(session: session)
            defer { stream.close() }
            #expect(stream.status == 200)
            let event = try await stream.next()
            #expect(event.event == "view")
            #expect(event.data.utf8.count == opened.body.count)
        }
    }
}

/// The demo's starter list length (its items count toward the cap).
enum TodoStoreStarter {
    static let count = 3
}
