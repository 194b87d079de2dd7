import Foundation
import HubDemo
import HubEngine
import HubModel
import HubServer
import HubSync
import HubTestSupport
import Testing

/// Nothing crosses between users: view ids are a keyed hash, patch cells and the
/// patch history are per session, and every event a patch listener gets, applied to what it
/// had, is its own session's view. The history is bounded per session and in bytes. Over real
/// sockets; patches applied with ``JSONPatchApplier``.
@Suite("Patch isolation and bounds")
struct PatchIsolationTests {
    static func todo(_ client: HubClient, _ session: String, add title: String) async throws {
        let response = try await client.action(
            #"{"session":"\#(session)","action":"todo:add","custom":{"title":"\#(title)"}}"#)
        #expect(response.status == 200)
    }

    static func todo(_ client: HubClient, _ session: String, delete id: String) async throws {
        let response = try await client.action(
            #"{"session":"\#(session)","action":"todo:delete","custom":{"id":"\#(id)"}}"#)
        #expect(response.status == 200)
    }

    /// Applies `event` to `have` (a patch must name `have`'s id as its base).
    static func apply(_ event: SSEStream.Event, to have: JSONValue, id haveID: String?) throws -> JSONValue {
        if event.event == "view" { return try PatchStreamTests.json(event.data) }
        #expect(event.event == "patch")
        let data = try PatchStreamTests.json(event.data)
        #expect(data["base"]?.stringValue == haveID, "a patch from what the listener had")
        return try JSONPatchApplier.apply(try #require(data["patch"]), to: have)
    }

    @Test("view ETags are 128-bit keyed tags: equal on two hubs with the same HUB_SESSION_KEYS, different under another key")
    func keyedTags() async throws {
        func etag(keys: String) async throws -> String {
            try await DemoConfigTests.withDemoHub(environment: TrustedSessionTests.environment(keys: keys)) { client, _ in
                let response = try await client.view("hub:todo")
                let etag = try #require(response.header("ETag"))
                // The same view of another session on the same hub: the same tag (content, not session).
                #expect(try await client.view("hub:todo").header("ETag") == etag)
                return etag
            }
        }
        let first = try await etag(keys: TrustedSessionTests.keyA)
        let replica = try await etag(keys: TrustedSessionTests.keyA)
        let other = try await etag(keys: TrustedSessionTests.keyB)
        #expect(first == replica, "replicas sharing their keys give a view the same ETag")
        #expect(first != other, "another deployment's key gives another tag")
        #expect(first.utf8.count == 34 && first.hasPrefix("\"") && first.hasSuffix("\""))
        #expect(first.dropFirst().dropLast().allSatisfy { $0.isHexDigit && !$0.isUppercase })
        // A key rotation (a new signing key first, the old one after it) changes the tags.
        let rotated = try await etag(keys: TrustedSessionTests.keyB + "," + TrustedSessionTests.keyA)
        #expect(rotated == other)
    }

    @Test("a 304 on If-None-Match still answers with the keyed ETag; event ids are the ETag")
    func notModifiedAndEventIDs() async throws {
        try await DemoConfigTests.withDemoHub(transport: .socket) { client, _ async throws in
            let opened = try await client.view("hub:todo")
            let session = try #require(opened.header("Hub-Session"))
            let etag = try #require(try await client.session(session).header("ETag"))
            let again = try await client.session(session, headers: [("If-None-Match", etag)])
            #expect(again.status == 304)
            let stream = try await client.events(session: session)
            defer { stream.close() }
            #expect(try await stream.next().id == String(etag.dropFirst().dropLast()))
        }
    }

    @Test("two sessions going through the same views: each computes its own patch, each applies to its own view")
    func patchCellsPerSession() async throws {
        try await DemoConfigTests.withDemoHub(transport: .socket) { client, _ async throws in
            let a = try #require(try await client.view("hub:todo").header("Hub-Session"))
            let b = try #require(try await client.view("hub:todo").header("Hub-Session"))
            let streamA = try await client.events(target: "/view/events?session=\(client.encode(a))&patch=json-patch", headers: [])
            defer { streamA.close() }
            let streamB = try await client.events(target: "/view/events?session=\(client.encode(b))&patch=json-patch", headers: [])
            defer { streamB.close() }
            let firstA = try await streamA.next()
            let firstB = try await streamB.next()
            #expect(firstA.id == firstB.id, "the same view, the same id")
            let computed = try await client.metric("hub_sse_patches_computed_total") ?? 0
            try await Self.todo(client, b, add: "Same title")
            try await Self.todo(client, a, add: "Same title")
            let (idA, viewA) = try await PatchStreamTests.currentID(client, a)
            let (idB, viewB) = try await PatchStreamTests.currentID(client, b)
            #expect(idA == idB, "base and target ids are equal in both sessions")
            let patchA = try await streamA.next()
            let patchB = try await streamB.next()
            #expect(patchA.event == "patch" && patchB.event == "patch")
            #expect(try Self.apply(patchA, to: try PatchStreamTests.json(firstA.data), id: firstA.id) == viewA)
            #expect(try Self.apply(patchB, to: try PatchStreamTests.json(firstB.data), id: firstB.id) == viewB)
            // Never shared across sessions: two computations for the one change.
            #expect(try await client.metric("hub_sse_patches_computed_total") == computed + 2)
        }
    }

    @Test("property: while session B acts, every event A's patch listener gets, applied to what A had, is A's view")
    func listenerSeesOnlyItsSession() async throws {
        var generator = SystemRandomNumberGenerator()
        try await DemoConfigTests.withDemoHub(transport: .socket) { client, _ async throws in
            let a = try #require(try await client.view("hub:todo").header("Hub-Session"))
            let b = try #require(try await client.view("hub:todo").header("Hub-Session"))
            let stream = try await client.events(target: "/view/events?session=\(client.encode(a))&patch=json-patch", headers: [])
            defer { stream.close() }
            let listenerB = try await client.events(target: "/view/events?session=\(client.encode(b))&patch=json-patch", headers: [])
            defer { listenerB.close() }
            let opening = try await stream.next()
            var have = try PatchStreamTests.json(opening.data)
            var haveID = opening.id
            // Titles both sessions use, so that their views meet (equal ids) and part again.
            let titles = ["Milk", "Bread", "Eggs"]
            var added = [a: [String](), b: [String]()]
            var nextID = [a: 4, b: 4]
            for step in 0..<24 {
                let actor = Bool.random(using: &generator) ? a : b
                if let first = added[actor]?.first, Int.random(in: 0..<3, using: &generator) == 0 {
                    try await Self.todo(client, actor, delete: first)
                    added[actor]?.removeFirst()
                } else {
                    try await Self.todo(client, actor, add: titles[Int.random(in: 0..<titles.count, using: &generator)])
                    added[actor, default: []].append("todo-\(nextID[actor]!)")
                    nextID[actor]! += 1
                }
                guard actor == a else { continue }
                let (id, view) = try await PatchStreamTests.currentID(client, a)
                guard id != haveID else { continue }
                let event = try await stream.next()
                #expect(event.id == id, "step \(step): the next event is A's own change")
                have = try Self.apply(event, to: have, id: haveID)
                haveID = event.id
                #expect(have == view, "step \(step)")
            }
            // B's changes sent A nothing: A's next change is the next event A gets.
            try await Self.todo(client, a, add: "Last")
            let (id, view) = try await PatchStreamTests.currentID(client, a)
            let last = try await stream.next()
            #expect(last.id == id)
            #expect(try Self.apply(last, to: have, id: haveID) == view)
        }
    }

    static func rowsHub(server: String? = nil, _ body: (HubClient, String) async throws -> Void) async throws {
        let rows = PatchStreamTests.Rows((0..<20).map { (id: "row-\($0)", title: "Row number \($0)") })
        var config = TestConfig()
        if let server { config["server.json"] = server }
        config.feature("rows", """
            { "id": "rows", "title": "Rows", "match": { "root": "hub:rows" },
              "operations": [ { "kind": "swift", "name": "rows", "rescheduleOn": ["rows:changed"] } ] }
            """)
        config["actions.json"] = #"{ "rows": { "kind": "swift", "name": "rows" } }"#
        var extensions = SwiftExtensions()
        extensions.registerOperation("rows") { _ in PatchStreamTests.RowsOperation(rows: rows) }
        extensions.registerActionFactory("rows", ClosureActionFactory(["changed": { _ in
            rows.rows.withLock { $0.append((id: "row-\($0.count)", title: "Row number \($0.count)")) }
            return .performed
        }]))
        try await withHub(config, extensions: extensions, transport: .socket) { client, _ in
            let session = try #require(try await client.view("hub:rows").header("Hub-Session"))
            try await body(client, session)
        }
    }

    @Test("at most 4 client variants per session keep a history: a fifth variant's listener gets full views")
    func variantsPerSession() async throws {
        try await Self.rowsHub { client, session in
            var streams: [SSEStream] = []
            defer { streams.forEach { $0.close() } }
            for index in 0..<5 {
                let stream = try await client.events(
                    target: "/view/events?session=\(client.encode(session))&patch=json-patch",
                    headers: [("Hub-Components", "default:row, test:variant\(index)")])
                streams.append(stream)
                #expect(try await stream.next().event == "view")
            }
            try await PatchStreamTests.changed(client, session)
            var kinds: [String?] = []
            for stream in streams { kinds.append(try await stream.next().event) }
            #expect(kinds == ["patch", "patch", "patch", "patch", "view"])
        }
    }

    @Test("hub_patch_history_bytes counts the history while a patch listener is open and drops to 0 when it leaves")
    func historyDroppedWithLastListener() async throws {
        try await Self.rowsHub { client, session in
            let target = "/view/events?session=\(client.encode(session))&patch=json-patch"
            let first = try await client.events(target: target, headers: [])
            let second = try await client.events(target: target, headers: [])
            let opening = try await first.next()
            _ = try await second.next()
            #expect(try await client.metric("hub_patch_history_bytes") ?? 0 > 0)
            first.close()
            // One listener left: the history stays, a reconnect with the old id gets a patch.
            try await PatchStreamTests.changed(client, session)
            #expect(try await second.next().event == "patch")
            let resumed = try await client.events(target: target, headers: [("Last-Event-ID", try #require(opening.id))])
            #expect(try await resumed.next().event == "patch")
            second.close()
            resumed.close()
            #expect(try await eventually { try await client.metric("hub_patch_history_bytes") == 0 })
            // Nothing kept: the same reconnect now gets the full view.
            let late = try await client.events(target: target, headers: [("Last-Event-ID", try #require(opening.id))])
            defer { late.close() }
            #expect(try await late.next().event == "view")
        }
    }

    @Test("a revoked session's streams end and its patch history goes with them")
    func historyDroppedWithSession() async throws {
        try await Self.rowsHub { client, session in
            let stream = try await client.events(
                target: "/view/events?session=\(client.encode(session))&patch=json-patch", headers: [])
            defer { stream.close() }
            _ = try await stream.next()
            #expect(try await client.metric("hub_patch_history_bytes") ?? 0 > 0)
            #expect(try await client.delete("/view?session=\(client.encode(session))").status == 204)
            #expect(try await eventually { try await client.metric("hub_patch_history_bytes") == 0 })
        }
    }

    @Test("limits.patchHistoryBytes bounds the history: past it the oldest goes, and at 0 every listener gets full views")
    func historyBudget() async throws {
        try await Self.rowsHub(server: #"{ "host": "127.0.0.1", "port": 0, "limits": { "patchHistoryBytes": 0 } }"#) { client, session in
            let stream = try await client.events(
                target: "/view/events?session=\(client.encode(session))&patch=json-patch", headers: [])
            defer { stream.close() }
            #expect(try await stream.next().event == "view")
            try await PatchStreamTests.changed(client, session)
            #expect(try await stream.next().event == "view")
            #expect(try await client.metric("hub_patch_history_bytes") == 0)
        }
        // A budget for about one session's views: many sessions never hold more than it.
        try await Self.rowsHub(server: #"{ "host": "127.0.0.1", "port": 0, "limits": { "patchHistoryBytes": 100000 } }"#) { client, session in
            var streams: [SSEStream] = []
            defer { streams.forEach { $0.close() } }
            for _ in 0..<6 {
                let other = try #require(try await client.view("hub:rows").header("Hub-Session"))
                let stream = try await client.events(
                    target: "/view/events?session=\(client.encode(other))&patch=json-patch", headers: [])
                streams.append(stream)
                _ = try await stream.next()
                #expect(try await client.metric("hub_patch_history_bytes") ?? .infinity <= 100000)
            }
            let stream = try await client.events(
                target: "/view/events?session=\(client.encode(session))&patch=json-patch", headers: [])
            streams.append(stream)
            _ = try await stream.next()
            // The most recently used session still patches.
            try await PatchStreamTests.changed(client, session)
            #expect(try await stream.next().event == "patch")
            #expect(try await client.metric("hub_patch_history_bytes") ?? .infinity <= 100000)
        }
    }
}
