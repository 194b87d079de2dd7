import Foundation
import HubEngine
import HubHTTP
import HubModel
import HubServer
import HubTestSupport
import Testing

/// Caching, compression, session lifetime, recovery and the request headers the engine reads.
@Suite("HTTP behaviour")
struct HTTPBehaviourTests {
    @Test("ETag and 304 on If-None-Match for GET /view?session with reload never")
    func etagNotModified() async throws {
        try await withStandardHub { client, _, fixture in
            let first = try await client.view("hub:never")
            let session = try #require(first.header("Hub-Session"))
            let etag = try #require(first.header("ETag"))
            let again = try await client.session(session, headers: [("If-None-Match", etag)])
            #expect(again.status == 304, "\(again)")
            #expect(again.body.isEmpty)
            #expect(again.header("ETag") == etag)
            let other = try await client.session(session, headers: [("If-None-Match", "\"something-else\"")])
            #expect(other.status == 200)
            #expect(other.body == first.body)
            #expect(fixture.never.count == 1)
        }
    }

    @Test("gzip above gzip.minBytes with Accept-Encoding: gzip; Vary; none without the header")
    func gzip() async throws {
        try await withStandardHub { client, _, _ in
            let plain = try await client.view("hub:big")
            #expect(plain.status == 200)
            #expect(plain.body.count > 1024)
            #expect(plain.header("Content-Encoding") == nil)
            #expect(plain.header("Vary")?.contains("Accept-Encoding") == true, "\(plain.headers)")
            let plainView = try plain.json()

            let zipped = try await client.view("hub:big", headers: [("Accept-Encoding", "gzip")])
            #expect(zipped.status == 200)
            #expect(zipped.header("Content-Encoding") == "gzip", "\(zipped.headers)")
            #expect(zipped.header("Vary")?.contains("Accept-Encoding") == true)
            #expect(zipped.body.count < plain.body.count)
            let inflated = try #require(Gzip.decompress(zipped.body))
            #expect(inflated == plain.body, "the same JSON bytes")
            #expect(try JSONParser().parse(inflated) == plainView)

            // A small view is never compressed.
            let small = try await client.view("hub:static", headers: [("Accept-Encoding", "gzip")])
            #expect(small.header("Content-Encoding") == nil)
        }
    }

    @Test("a Hub-Toggle override picks the variant")
    func toggleOverride() async throws {
        try await withStandardHub { client, _, _ in
            let list = try await client.view("hub:variant", headers: [("Hub-Toggle", "layout=list")]).json()
            let grid = try await client.view("hub:variant", headers: [("Hub-Toggle", "layout=grid")]).json()
            #expect(list.component("item")?["text"]?["title"]?.stringValue == "List")
            #expect(grid.component("item")?["text"]?["title"]?.stringValue == "Grid")
        }
    }

    @Test("allowToggleOverride: false ignores Hub-Toggle")
    func toggleOverrideDisabled() async throws {
        let server = #"{ "host": "127.0.0.1", "port": 0, "allowToggleOverride": false, "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" } }"#
        try await withStandardHub(server: server) { client, _, _ in
            let view = try await client.view("hub:variant", headers: [("Hub-Toggle", "layout=grid")]).json()
            #expect(view.component("item")?["text"]?["title"]?.stringValue == "List")
        }
    }

    @Test("sessions expire after sessions.idleSeconds; the token then rebuilds the session (reason expired)")
    func sessionExpiry() async throws {
        // A TTL no loaded machine reaches by itself; the sweep is called as if two TTLs passed.
        let server = #"{ "host": "127.0.0.1", "port": 0, "sessions": { "idleSeconds": 3600 }, "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" } }"#
        let upstream = try makeStandardUpstream()
        defer { upstream.stop() }
        try await withHub(Fixture.config(upstream: upstream.base, server: server), extensions: Fixture().extensions) { client, app in
            let session = try #require(try await client.view("hub:pages").header("Hub-Session"))  // not memoized: stored
            #expect(try await client.session(session).status == 200)
            #expect(app.engine.sessions.removeExpired(now: .now + .seconds(7200)) == 1)
            #expect(try await client.get("/health").json()["sessions"]?.intValue == 0)
            let metrics = try await client.get("/metrics").text
            #expect(metrics.contains(#"hub_sessions_ended_total{reason="expired"} 1"#), "\(metrics)")
            let rebuilt = try await client.session(session)
            #expect(rebuilt.status == 200)
            #expect(rebuilt.header("Hub-Session") == session)
            #expect(try await client.get("/metrics").text.contains(#"hub_sessions_rebuilt_total{reason="expired"} 1"#))
        }
    }

    @Test("a session followed over SSE does not expire; it does once the listener leaves")
    func listenedSessionStaysAlive() async throws {
        // A TTL no loaded machine reaches by itself: the test moves time instead, by sweeping as
        // if each sweep came two TTLs after the last (`removeExpired(now:)`), so nothing depends
        // on how long the subscription takes to attach.
        let server = #"{ "host": "127.0.0.1", "port": 0, "sessions": { "idleSeconds": 3600 }, "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" } }"#
        let upstream = try makeStandardUpstream()
        defer { upstream.stop() }
        try await withHub(Fixture.config(upstream: upstream.base, server: server), extensions: Fixture().extensions, transport: .socket) { client, app in
            let sessions = app.engine.sessions
            var ttls = 0
            func sweepLater() -> Int {
                ttls += 2
                return sessions.removeExpired(now: .now + .seconds(3600 * ttls))
            }
            let session = try #require(try await client.view("hub:static").header("Hub-Session"))
            let events = try await client.events(session: session)
            try #require(events.status == 200)
            _ = try await events.next()  // the current view: the listener is attached
            #expect(sweepLater() == 0)
            #expect(sweepLater() == 0)
            #expect(try await client.get("/health").json()["sessions"]?.intValue == 1)
            events.close()
            // The server notices a gone listener when it next writes (a heartbeat: at most 15 s).
            let expired = try await eventually {
                _ = sweepLater()
                return try await client.get("/health").json()["sessions"]?.intValue == 0
            }
            #expect(expired)
            // Expired here, so its token rebuilds it.
            #expect(try await client.session(session).status == 200)
            #expect(try await client.get("/metrics").text.contains(#"hub_sessions_rebuilt_total{reason="expired"} 1"#))
        }
    }

    @Test("restart: an old token rebuilds its session for an action, with or without uri; an id-only token needs uri")
    func recoveryAfterRestart() async throws {
        let upstream = try makeStandardUpstream()
        let fixture = Fixture()
        let directory = try Fixture.config(upstream: upstream.base).write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            let oldSession = try await withHub(directory: directory, extensions: fixture.extensions) { client, _ in
                let response = try await client.view("hub:actions")
                #expect(response.status == 200)
                return try #require(response.header("Hub-Session"))
            }
            try await withHub(directory: directory, extensions: fixture.extensions) { client, _ in
                let withoutURI = try await client.action(#"{"session":"\#(oldSession)","action":"test:ok"}"#)
                #expect(withoutURI.status == 200, "\(withoutURI)")
                #expect(withoutURI.header("Hub-Session") == oldSession, "rebuilt under the same token")
                let response = try await client.action(
                    #"{"session":"\#(oldSession)","uri":"hub:actions","action":"test:ok"}"#)
                #expect(response.status == 200, "\(response)")
                #expect(response.header("Hub-Session") == oldSession)
                #expect(try response.json()["performed"]?.boolValue == true)
                // Not a token this server issued (an identifier alone): 404 without uri, a new
                // session with it.
                let idOnly = try #require(SessionToken.identifier(of: oldSession))
                let other = String(idOnly.reversed())
                try expectProblem(try await client.action(#"{"session":"\#(other)","action":"test:ok"}"#), 404, "session_not_found")
                let recovered = try await client.action(#"{"session":"\#(other)","uri":"hub:actions","action":"test:ok"}"#)
                #expect(recovered.status == 200)
                let newSession = try #require(recovered.header("Hub-Session"))
                #expect(newSession != other)
                #expect(try await client.session(newSession).status == 200)
            }
        } catch {
            upstream.stop()
            throw error
        }
        upstream.stop()
    }

    @Test("Hub-Components: unknown components get their category's fallback, the category is kept")
    func componentFallback() async throws {
        try await withStandardHub { client, _, _ in
            let native = try await client.view("hub:fallback").json()
            #expect(native.component("card1")?["component"]?["id"]?.stringValue == "custom:fancy")

            let fallback = try await client.view("hub:fallback", headers: [("Hub-Components", "default:row, default:header")])
                .json()
            let card = try #require(fallback.component("card1"))
            #expect(card["component"]?["id"]?.stringValue == "default:row", "\(card)")
            #expect(card["component"]?["category"]?.stringValue == "card")
            #expect(card["text"]?["title"]?.stringValue == "Fancy")
            #expect(fallback.component("row1")?["component"]?["id"]?.stringValue == "default:row")

            // The same applies to a session's view and to action responses.
            let opened = try await client.view("hub:fallback")
            let session = try #require(opened.header("Hub-Session"))
            let again = try await client.session(session, headers: [("Hub-Components", "default:row")]).json()
            #expect(again.component("card1")?["component"]?["id"]?.stringValue == "default:row")
        }
    }

    @Test("a Hub-Connectivity change reloads the session, even with reload never")
    func connectivityChange() async throws {
        try await withStandardHub { client, _, fixture in
            let first = try await client.view("hub:connectivity")
            let session = try #require(first.header("Hub-Session"))
            #expect(try first.json()["custom"]?["connectivity"]?.stringValue == "online")
            let same = try await client.session(session, headers: [("Hub-Connectivity", "online")])
            #expect(same.body == first.body)
            #expect(fixture.connectivity.count == 1)

            let offline = try await client.session(session, headers: [("Hub-Connectivity", "offline")])
            #expect(offline.status == 200)
            #expect(fixture.connectivity.count == 2)
            #expect(try offline.json()["custom"]?["connectivity"]?.stringValue == "offline")
        }
    }

    @Test("an SSE listener receives the view after another client's action")
    func sseAfterAction() async throws {
        try await withStandardHub(transport: .socket) { client, _, _ in
            let session = try #require(try await client.view("hub:actions").header("Hub-Session"))
            let stream = try await client.events(session: session)
            defer { stream.close() }
            let first = try await stream.next()
            #expect(try JSONParser().parse(first.data)["custom"]?["runs"]?.intValue == 1)
            let selected = try await client.action(#"{"session":"\#(session)","action":"test:vetoed"}"#)
            #expect(try selected.json()["performed"]?.boolValue == false)
            let next = try await stream.next()
            #expect(next.event == "view")
            #expect(try JSONParser().parse(next.data)["custom"]?["runs"]?.intValue == 2)
        }
    }
}

@Suite("HTTP behaviour: compression and ids everywhere")
struct CompressionAndIDTests {
    @Test("action responses and /features over gzip.minBytes are gzipped with Vary")
    func gzipEverywhere() async throws {
        try await withStandardHub { client, _, _ in
            let session = try #require(try await client.view("hub:big").header("Hub-Session"))
            let action = try await client.action(
                #"{"session":"\#(session)","action":"hub:reload"}"#, headers: [("Accept-Encoding", "gzip")])
            #expect(action.status == 200, "\(action)")
            #expect(action.header("Content-Encoding") == "gzip", "\(action.headers)")
            #expect(action.header("Vary")?.contains("Accept-Encoding") == true, "\(action.headers)")
            let inflated = try #require(Gzip.decompress(action.body))
            #expect(try JSONParser().parse(inflated)["performed"]?.boolValue == true)

            let features = try await client.get("/features", headers: [("Accept-Encoding", "gzip")])
            #expect(features.status == 200)
            #expect(features.header("Content-Encoding") == "gzip", "\(features.headers)")
            #expect(features.header("Vary")?.contains("Accept-Encoding") == true, "\(features.headers)")
        }
    }

    @Test("errors from the HTTP layer carry X-Request-Id and a problem body too")
    func requestIDOnErrors() async throws {
        let server = #"{ "host": "127.0.0.1", "port": 0, "limits": { "bodyBytes": 64 }, "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" } }"#
        try await withStandardHub(server: server) { client, _, _ in
            let tooLarge = try await client.action(
                #"{"session":"s","action":"test:ok","custom":{"pad":"\#(String(repeating: "y", count: 200))"}}"#)
            try expectProblem(tooLarge, 413)
            #expect(tooLarge.header("X-Request-Id") != nil, "\(tooLarge)")
            let notFound = try await client.get("/nope", headers: [("X-Request-Id", "abc-123")])
            #expect(notFound.header("X-Request-Id") == "abc-123")
        }
    }
}

@Suite("HTTP behaviour: live updates")
struct LiveUpdateTests {
    @Test("every SSE listener gets the change; a deleted session ends its streams")
    func everyListener() async throws {
        try await withStandardHub(transport: .socket) { client, _, _ in
            let session = try #require(try await client.view("hub:actions").header("Hub-Session"))
            let one = try await client.events(session: session)
            defer { one.close() }
            let two = try await client.events(session: session)
            defer { two.close() }
            #expect(try await one.next().event == "view")
            #expect(try await two.next().event == "view")
            _ = try await client.action(#"{"session":"\#(session)","action":"test:bump"}"#)
            for stream in [one, two] {
                let event = try await stream.next()
                #expect(event.event == "view")
                #expect(try JSONParser().parse(event.data)["custom"]?["runs"]?.intValue == 2)
            }
            #expect(try await client.delete("/view?session=\(session)").status == 204)
            let ended = await #expect(throws: HarnessError.self) { _ = try await one.next() }
            #expect(ended?.description == "event stream ended", "ended, not timed out")
        }
    }
}
