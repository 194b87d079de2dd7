import Foundation
import HubModel
import HubTestSupport
import Testing

/// Every operation kind of "Config format v1", end to end.
@Suite("Operation kinds")
struct OperationTests {
    @Test("static: inline json and file content, in chain order")
    func staticContent() async throws {
        try await withStandardHub { client, _, _ in
            let view = try await client.view("hub:static").json()
            #expect(view.bodyIDs == ["a", "c"])
            #expect(view.component("a")?["text"]?["title"]?.stringValue == "A")
            #expect(view.component("c")?["text"]?["title"]?.stringValue == "C")
        }
    }

    @Test("remote: a root object is a view model")
    func remoteObject() async throws {
        try await withStandardHub { client, upstream, _ in
            let response = try await client.view("hub:remote")
            #expect(response.status == 200, "\(response)")
            let view = try response.json()
            #expect(view["title"]?.stringValue == "Remote title")
            #expect(view.bodyIDs == ["r1"])
            #expect(view.component("r1")?["text"]?["title"]?.stringValue == "R1")
            #expect(upstream.log.count(path: "/object") == 1)
        }
    }

    @Test("remote: a root array is a list of body components")
    func remoteArray() async throws {
        try await withStandardHub { client, _, _ in
            let response = try await client.view("hub:array")
            #expect(response.status == 200, "\(response)")
            let view = try response.json()
            #expect(view.bodyIDs == ["x1", "x2"])
            #expect(view.component("x2")?["text"]?["title"]?.stringValue == "X2")
        }
    }

    @Test("remote: a custom schema with '*' and 'first' maps into the default schema")
    func remoteCustomSchema() async throws {
        try await withStandardHub { client, _, _ in
            let response = try await client.view("hub:custom")
            #expect(response.status == 200, "\(response)")
            let view = try response.json()
            #expect(view["title"]?.stringValue == "Items")
            #expect(view.bodyIDs == ["u1", "u2"])
            let first = try #require(view.component("u1"))
            #expect(first["text"]?["title"]?.stringValue == "First", "the first path that yields a value: name")
            #expect(first["images"]?["main"]?["uri"]?.stringValue == "https://img.example/1.jpg")
            #expect(first["component"]?["id"]?.stringValue == "default:card")
            #expect(view.component("u2")?["text"]?["title"]?.stringValue == "Second", "falls back to title")
        }
    }

    @Test("remote: {uri.N}, {query.NAME}, {header.NAME} and {page} are substituted, percent-encoded")
    func remoteSubstitution() async throws {
        try await withStandardHub { client, upstream, _ in
            // The view URI hub:subst:seg one/x?q=x/y:z (segment 2 = "seg one/x", query q = "x/y:z").
            let response = try await client.view("hub:subst:seg one/x?q=x/y:z", headers: [("X-Test", "h 1/&")])
            #expect(response.status == 200, "\(response)")
            let hit = try #require(upstream.log.hits(path: "/echo").first)
            #expect(hit.target.contains("seg=seg%20one%2Fx&"), "\(hit.target)")
            #expect(hit.target.contains("q=x%2Fy%3Az&"), "\(hit.target)")
            #expect(hit.target.contains("h=h%201%2F%26&"), "\(hit.target)")
            #expect(hit.target.hasSuffix("page=0"), "\(hit.target)")
            #expect(hit.queryValue("seg") == "seg one/x")
            #expect(hit.queryValue("q") == "x/y:z")
            #expect(hit.queryValue("h") == "h 1/&")

            // A query value escaped in the view URI is decoded, then encoded once (never "%2520"); '+' is a plus.
            #expect(try await client.view("hub:subst:x?q=a%20b%2Fc").status == 200)
            #expect(upstream.log.hits(path: "/echo").last?.target.contains("q=a%20b%2Fc&") == true)
            #expect(try await client.view("hub:subst:x?q=a+b").status == 200)
            #expect(upstream.log.hits(path: "/echo").last?.target.contains("q=a%2Bb&") == true)
        }
    }

    @Test("recover applies only after an error, and clears it")
    func recover() async throws {
        try await withStandardHub { client, _, _ in
            let failed = try await client.view("hub:recover")
            #expect(failed.status == 200, "the error is recovered: \(failed)")
            #expect(try failed.json().bodyIDs == ["offline"])

            let fine = try await client.view("hub:recover-ok")
            #expect(fine.status == 200)
            #expect(try fine.json().bodyIDs == ["ok"], "no error: recover changes nothing")
        }
    }

    @Test("variant: the toggle default, a Hub-Toggle override, a rollout stable per key")
    func variant() async throws {
        try await withStandardHub { client, _, _ in
            let plain = try await client.view("hub:variant").json()
            #expect(plain.component("item")?["text"]?["title"]?.stringValue == "List", "no key: the default")

            let forced = try await client.view("hub:variant", headers: [("Hub-Toggle", "layout=grid")]).json()
            #expect(forced.component("item")?["text"]?["title"]?.stringValue == "Grid")

            let unknownValue = try await client.view("hub:variant", headers: [("Hub-Toggle", "layout=mosaic")]).json()
            #expect(unknownValue.component("item")?["text"]?["title"]?.stringValue == "List")

            var seen: Set<String> = []
            for index in 0..<16 {
                let headers = [("Hub-Client-Id", "client-\(index)")]
                let once = try await client.view("hub:variant", headers: headers).json()
                let twice = try await client.view("hub:variant", headers: headers).json()
                let title = try #require(once.component("item")?["text"]?["title"]?.stringValue)
                #expect(twice.component("item")?["text"]?["title"]?.stringValue == title, "stable for client-\(index)")
                seen.insert(title)
            }
            #expect(seen == ["List", "Grid"], "a 50% rollout over 16 keys gives both values")
        }
    }

    @Test("variant: a client's bucket is FNV-1a of toggle:key, the same in every release; the last Hub-Toggle assignment wins")
    func variantBucketsAndOverrides() async throws {
        try await withStandardHub { client, _, _ in
            func title(_ headers: [(String, String)]) async throws -> String? {
                try await client.view("hub:variant", headers: headers).json().component("item")?["text"]?["title"]?.stringValue
            }
            // FNV-1a 64 of "layout:client-N" mod 100, worked out outside Swift: below 50 is `grid`.
            let buckets = [17, 6, 95, 84, 73, 62, 51, 40, 5, 94, 22, 33]
            for (index, bucket) in buckets.enumerated() {
                let got = try await title([("Hub-Client-Id", "client-\(index)")])
                #expect(got == (bucket < 50 ? "Grid" : "List"), "client-\(index)")
            }
            let cases: [(headers: [(String, String)], title: String, why: String)] = [
                ([("Hub-Toggle", "layout=grid, layout=list")], "List", "the later assignment wins"),
                ([("Hub-Toggle", "layout=grid"), ("hub-toggle", "other=x")], "List", "only the last Hub-Toggle field counts"),
                ([("Hub-Toggle", "layout=grid"), ("HUB-TOGGLE", "layout=list")], "List", "the last field, any case of its name"),
                ([("Hub-Toggle", "other=x, layout=grid")], "Grid", "another toggle's assignment beside it"),
                ([("Hub-Toggle", " layout = grid ,")], "Grid", "names and values trimmed, empty pairs skipped"),
                ([("Hub-Toggle", "layout=grid, layout=")], "Grid", "`layout=` assigns nothing"),
                ([("Hub-Toggle", "layout=grid, =list")], "Grid", "`=list` assigns nothing"),
                ([("Hub-Toggle", "layout=grid, layout= , other=x")], "List", "a blank value is a value (unknown: the default)"),
                ([("Hub-Toggle", "Layout=grid")], "List", "toggle names are case-sensitive"),
                ([("Hub-Toggle", "layout=list"), ("Hub-Client-Id", "client-0")], "List", "an override beats the rollout"),
            ]
            for (headers, expected, why) in cases {
                let got = try await title(headers)
                #expect(got == expected, "\(headers): \(why)")
            }
        }
    }

    @Test("variant over a socket: many apps asking in turn each get their own bucket's view every time")
    func variantForManyAppsInTurn() async throws {
        try await withStandardHub(transport: .socket) { client, _, _ in
            let titles = try await client.appsInTurn("hub:variant", ids: (0..<12).map { "client-\($0)" }) { view in
                try #require(view.component("item")?["text"]?["title"]?.stringValue)
            }
            #expect(Set(titles.values) == ["List", "Grid"], "both buckets among the apps")
        }
    }

    @Test("patch: set merges by id and appends new ids, remove drops, move reorders")
    func patch() async throws {
        try await withStandardHub { client, _, _ in
            let response = try await client.view("hub:patch")
            #expect(response.status == 200, "\(response)")
            let view = try response.json()
            #expect(view.bodyIDs == ["c", "a", "n"])
            #expect(view.component("a")?["text"]?["title"]?.stringValue == "A", "merged: title kept")
            #expect(view.component("a")?["text"]?["subtitle"]?.stringValue == "sub", "merged: subtitle set")
            #expect(view.component("n")?["text"]?["title"]?.stringValue == "New")
            #expect(view.component("b") == nil)
        }
    }

    @Test("swift: a registered operation runs once per load and sees the request")
    func swiftOperation() async throws {
        try await withStandardHub { client, _, fixture in
            let view = try await client.view("hub:always").json()
            #expect(view["custom"]?["runs"]?.intValue == 1)
            #expect(view.component("runs")?["text"]?["title"]?.stringValue == "runs 1")
            #expect(fixture.always.count == 1)
        }
    }

    @Test("rescheduleOn: the observing operation re-runs after the action")
    func rescheduleOn() async throws {
        try await withStandardHub { client, _, fixture in
            let session = try #require(try await client.view("hub:actions").header("Hub-Session"))
            #expect(fixture.observer.count == 1)
            let response = try await client.action(#"{"session":"\#(session)","action":"test:ok"}"#)
            #expect(response.status == 200)
            #expect(fixture.observer.count == 1, "test:ok is not in rescheduleOn")
            let bumped = try await client.action(#"{"session":"\#(session)","action":"test:bump"}"#)
            #expect(fixture.observer.count == 2)
            #expect(try bumped.json()["view"]?["custom"]?["runs"]?.intValue == 2)
        }
    }
}
