import Foundation
import HubDemo
import HubEngine
import HubModel
import HubServer
import HubSync
import HubTestSupport
import Testing

/// JSON Patch events over SSE (`patch=json-patch`, docs/API.md "Patches"), over real sockets.
/// Every patch is applied with ``JSONPatchApplier``, a test-only RFC 6902 implementation.
@Suite("Patches over SSE")
struct PatchStreamTests {
    /// The ETag of `GET /view?session=` as an event id (without its quotes).
    static func currentID(_ client: HubClient, _ session: String) async throws -> (id: String, view: JSONValue) {
        let response = try await client.session(session)
        let etag = try #require(response.header("ETag"))
        return (String(etag.dropFirst().dropLast()), try response.json())
    }

    static func json(_ text: String) throws -> JSONValue { try JSONParser(options: .init(maxDepth: 4096)).parse(text) }

    @Test("todo: after todo:add a patch whose id is the view's ETag and that applies to the previous view; resume by Last-Event-ID")
    func todoPatches() async throws {
        try await DemoConfigTests.withDemoHub(transport: .socket) { client, _ async throws in
            let opened = try await client.view("hub:todo")
            let session = try #require(opened.header("Hub-Session"))
            let target = "/view/events?session=\(client.encode(session))"
            let patching = try await client.events(target: target + "&patch=json-patch", headers: [])
            defer { patching.close() }
            let plain = try await client.events(session: session)
            defer { plain.close() }
            #expect(patching.status == 200)
            let first = try await patching.next()
            #expect(first.event == "view")
            let firstID = try #require(first.id)
            let before = try Self.json(first.data)
            #expect(try await plain.next().event == "view")

            let added = try await client.action(#"{"session":"\#(session)","action":"todo:add","custom":{"title":"Ship it"}}"#)
            #expect(added.status == 200)
            let (currentID, currentView) = try await Self.currentID(client, session)

            let patch = try await patching.next()
            #expect(patch.event == "patch")
            #expect(patch.id == currentID)
            let data = try Self.json(patch.data)
            #expect(data["base"]?.stringValue == firstID)
            let patched = try JSONPatchApplier.apply(try #require(data["patch"]), to: before)
            #expect(patched == currentView)
            #expect(patch.data.utf8.count < added.body.count / 2, "a patch, not the view again")

            // Without the opt-in: the full view, as before.
            let full = try await plain.next()
            #expect(full.event == "view")
            #expect(full.id == currentID)
            #expect(try Self.json(full.data) == currentView)

            // Reconnecting with the previous id: a patch from there (computed once, shared).
            let resumed = try await client.events(target: target + "&patch=json-patch", headers: [("Last-Event-ID", firstID)])
            defer { resumed.close() }
            let resumedPatch = try await resumed.next()
            #expect(resumedPatch.event == "patch")
            #expect(resumedPatch.id == currentID)
            #expect(resumedPatch.data == patch.data)
            // The header form asks for patches too.
            let byHeader = try await client.events(
                target: target, headers: [("Hub-Accept-Patch", "json-patch"), ("Last-Event-ID", firstID)])
            defer { byHeader.close() }
            #expect(try await byHeader.next().event == "patch")
            #expect(try await client.metric("hub_sse_patches_computed_total") == 1)

            // An unknown id gets the full view; the current id gets nothing until the next change.
            let unknown = try await client.events(target: target + "&patch=json-patch", headers: [("Last-Event-ID", "nope")])
            defer { unknown.close() }
            let unknownFirst = try await unknown.next()
            #expect(unknownFirst.event == "view")
            #expect(try Self.json(unknownFirst.data) == currentView)
            let current = try await client.events(
                target: target + "&patch=json-patch", headers: [("Last-Event-ID", currentID)])
            defer { current.close() }
            _ = try await client.action(#"{"session":"\#(session)","action":"todo:add","custom":{"title":"Again"}}"#)
            let (nextID, nextView) = try await Self.currentID(client, session)
            let nextPatch = try await current.next()
            #expect(nextPatch.event == "patch")
            #expect(nextPatch.id == nextID)
            #expect(try JSONPatchApplier.apply(try #require(Self.json(nextPatch.data)["patch"]), to: currentView) == nextView)
        }
    }

    @Test("patch=other is 400 invalid_parameter; another Hub-Accept-Patch value gets full views")
    func badOptIn() async throws {
        try await DemoConfigTests.withDemoHub(transport: .socket) { client, _ async throws in
            let session = try #require(try await client.view("hub:todo").header("Hub-Session"))
            try expectProblem(
                try await client.get("/view/events?session=\(client.encode(session))&patch=merge-patch"), 400, "invalid_parameter")
            let other = try await client.events(
                target: "/view/events?session=\(client.encode(session))", headers: [("Hub-Accept-Patch", "merge-patch")])
            defer { other.close() }
            #expect(try await other.next().event == "view")
            _ = try await client.action(#"{"session":"\#(session)","action":"todo:add","custom":{"title":"X"}}"#)
            #expect(try await other.next().event == "view")
        }
    }

    // MARK: - Rows the test controls

    /// The body rows a Swift operation shows: the test edits them and posts `rows:changed`.
    final class Rows: Sendable {
        let rows: Locked<[(id: String, title: String)]>
        init(_ rows: [(id: String, title: String)]) { self.rows = Locked(rows) }
    }

    struct RowsOperation: ContentOperation {
        let rows: Rows
        var name: String { "rows" }
        func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
            builder.title = "Rows"
            for row in rows.rows.withLock({ $0 }) {
                builder.body.update(row.id) {
                    $0.title = row.title
                    $0.subtitle = "A row of the patch test, with some text to make it a realistic size"
                }
            }
        }
    }

    static func withRowsHub(_ rows: Rows, _ body: (HubClient, String) async throws -> Void) async throws {
        var config = TestConfig()
        config.feature("rows", """
            { "id": "rows", "title": "Rows", "match": { "root": "hub:rows" },
              "operations": [ { "kind": "swift", "name": "rows", "rescheduleOn": ["rows:changed"] } ] }
            """)
        config["actions.json"] = #"{ "rows": { "kind": "swift", "name": "rows" } }"#
        var extensions = SwiftExtensions()
        extensions.registerOperation("rows") { _ in RowsOperation(rows: rows) }
        extensions.registerActionFactory("rows", ClosureActionFactory(["changed": { _ in .performed }]))
        try await withHub(config, extensions: extensions, transport: .socket) { client, _ in
            let session = try #require(try await client.view("hub:rows").header("Hub-Session"))
            try await body(client, session)
        }
    }

    static func changed(_ client: HubClient, _ session: String) async throws {
        let response = try await client.action(#"{"session":"\#(session)","action":"rows:changed"}"#)
        #expect(response.status == 200)
    }

    @Test("one row added to a view of 60 body components: the patch is at most 10% of the view's bytes")
    func sixtyRows() async throws {
        let rows = Rows((0..<60).map { (id: "row-\($0)", title: "Row number \($0)") })
        try await Self.withRowsHub(rows) { client, session in
            let stream = try await client.events(
                target: "/view/events?session=\(client.encode(session))&patch=json-patch", headers: [])
            defer { stream.close() }
            let first = try await stream.next()
            #expect(first.event == "view")
            rows.rows.withLock { $0.insert((id: "row-new", title: "A new row"), at: 30) }
            try await Self.changed(client, session)
            let (id, view) = try await Self.currentID(client, session)
            let viewBytes = try await client.session(session).body.count
            let patch = try await stream.next()
            #expect(patch.event == "patch")
            #expect(patch.id == id)
            #expect(view.bodyIDs.count == 61)
            #expect(patch.data.utf8.count * 10 <= viewBytes, "\(patch.data.utf8.count) bytes of patch for \(viewBytes) of view")
            let patched = try JSONPatchApplier.apply(try #require(Self.json(patch.data)["patch"]), to: try Self.json(first.data))
            #expect(patched == view)
        }
    }

    @Test("random inserts, removals, moves and edits: every patch applies to exactly the next view; larger ones are full views")
    func randomEdits() async throws {
        var generator = SystemRandomNumberGenerator()
        let rows = Rows((0..<12).map { (id: "r\($0)", title: "Row \($0)") })
        try await Self.withRowsHub(rows) { client, session in
            let stream = try await client.events(
                target: "/view/events?session=\(client.encode(session))&patch=json-patch", headers: [])
            defer { stream.close() }
            let opening = try await stream.next()
            var have = try Self.json(opening.data)
            var haveID = opening.id
            var nextID = 100
            var patches = 0
            for step in 0..<25 {
                rows.rows.withLock { rows in
                    for _ in 0..<Int.random(in: 1...3, using: &generator) {
                        switch Int.random(in: 0..<4, using: &generator) {
                        case 0:
                            nextID += 1
                            rows.insert((id: "r\(nextID)", title: "New \(nextID)"), at: Int.random(in: 0...rows.count, using: &generator))
                        case 1 where rows.count > 2:
                            rows.remove(at: Int.random(in: 0..<rows.count, using: &generator))
                        case 2 where rows.count > 2:
                            let row = rows.remove(at: Int.random(in: 0..<rows.count, using: &generator))
                            rows.insert(row, at: Int.random(in: 0...rows.count, using: &generator))
                        default:
                            let index = Int.random(in: 0..<rows.count, using: &generator)
                            rows[index].title += " (edited \(step))"
                        }
                    }
                }
                try await Self.changed(client, session)
                let (id, view) = try await Self.currentID(client, session)
                // A move to the same place changes nothing: no event.
                guard id != haveID else { continue }
                haveID = id
                let event = try await stream.next()
                #expect(event.id == id)
                if event.event == "patch" {
                    patches += 1
                    have = try JSONPatchApplier.apply(try #require(Self.json(event.data)["patch"]), to: have)
                } else {
                    #expect(event.event == "view")
                    have = try Self.json(event.data)
                }
                #expect(have == view, "step \(step)")
            }
            #expect(patches > 0)

            // Every row replaced by new ones: the patch would be larger than the view, so the view goes.
            rows.rows.withLock { rows in rows = rows.indices.map { (id: "fresh-\($0)", title: "Fresh \($0)") } }
            try await Self.changed(client, session)
            let replaced = try await stream.next()
            #expect(replaced.event == "view")
            #expect(try Self.json(replaced.data) == (try await Self.currentID(client, session)).view)
        }
    }
}
