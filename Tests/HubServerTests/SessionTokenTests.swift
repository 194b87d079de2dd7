import Foundation
import HubDemo
import HubEngine
import HubModel
import HubServer
import HubTestSupport
import Testing

/// Sessions that survive: a token rebuilds its session in any process (evicted, expired,
/// restarted), memoized views store nothing until used, used sessions outlive floods of
/// one-shot views, and event streams resume by `Last-Event-ID`.
@Suite("Session tokens")
struct SessionTokenTests {
    static func metric(_ client: HubClient, _ name: String) async throws -> Double {
        try await client.metric(name) ?? -1
    }

    @Test("a token is signed: id, URI, issue time and MAC; garbage and tampering are refused")
    func tokenFormat() throws {
        let keys = SessionKeys.ephemeral()
        let issued: Int64 = 1_800_000_000
        func verify(_ text: String, keys: SessionKeys = keys, now: Int64 = issued + 10) -> Result<SessionToken, SessionToken.Rejection> {
            SessionToken.verify(text, keys: keys, now: now, maxAge: 3600)
        }
        let token = SessionToken(id: SessionIdentifier.make(), viewURI: "hub:todo?x=1&y=ü", issuedAt: issued, keys: keys)
        let parsed = try verify(token.encoded).get()
        #expect(parsed == token)
        #expect(parsed.viewURI == "hub:todo?x=1&y=ü")
        #expect(parsed.issuedAt == issued)
        let urlSafe = token.encoded.utf8.allSatisfy { byte in
            byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                || (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
        }
        #expect(urlSafe)
        let long = SessionToken(id: token.id, viewURI: "hub:" + String(repeating: "a", count: 696), issuedAt: issued, keys: keys)
        #expect(long.encoded.utf8.count <= SessionToken.maximumBytes)
        #expect(try verify(long.encoded).get().viewURI != nil)
        let tooLong = SessionToken(id: token.id, viewURI: "hub:" + String(repeating: "a", count: 800), issuedAt: issued, keys: keys)
        #expect(tooLong.viewURI == nil && !tooLong.canRebuild, "too long: no URI, the token cannot rebuild")
        #expect(try verify(tooLong.encoded).get().viewURI == nil)
        for garbage in ["", "x", "gone", token.id, token.id + ".", token.id + ".q" + "aGk", token.encoded + "A",
                        String(token.id.dropLast()) + "*" + token.encoded.dropFirst(22), token.encoded + ".x"] {
            guard case .failure(.malformed) = verify(garbage) else {
                Issue.record("\(garbage) is not a token")
                continue
            }
        }
        // One character changed anywhere (id, kind, URI, time or MAC) never verifies.
        let bytes = Array(token.encoded.utf8)
        for index in bytes.indices {
            var tampered = bytes
            tampered[index] = bytes[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            if case .success = verify(String(decoding: tampered, as: UTF8.self)) { Issue.record("position \(index) changed still verifies") }
        }
        // Another server's key, an expired token; a rotated key list still verifies old tokens.
        guard case .failure(.signature) = verify(token.encoded, keys: .ephemeral()) else { throw HarnessError("another key verified") }
        guard case .failure(.expired) = verify(token.encoded, now: issued + 3600) else { throw HarnessError("an expired token verified") }
        let rotated = try SessionKeys(SessionKeys.ephemeral().keys + keys.keys)
        #expect(try verify(token.encoded, keys: rotated).get() == token)
        let resigned = SessionToken(id: token.id, viewURI: token.viewURI, issuedAt: issued, keys: rotated)
        guard case .failure(.signature) = verify(resigned.encoded) else { throw HarnessError("the new key's token verified under the old") }
    }

    @Test("keys: hex or base64url of 32 bytes or more; shorter or unreadable keys are refused")
    func keyTexts() throws {
        let key = SessionKeys.randomKey()
        let hex = key.map { String(format: "%02x", $0) }.joined()
        #expect(try SessionKeys(texts: [hex]).keys == [key])
        #expect(try SessionKeys(texts: [SessionKeys.encode(key)]).keys == [key])
        #expect(try SessionKeys(texts: [" \(SessionKeys.encode(key)) ", hex]).keys == [key, key])
        #expect(throws: SessionKeys.KeyError.tooShort(index: 0, bytes: 16)) { try SessionKeys(texts: [SessionKeys.encode(Array(key.prefix(16)))]) }
        #expect(throws: SessionKeys.KeyError.unreadable(index: 1)) { try SessionKeys(texts: [hex, "not a key!"]) }
        #expect(throws: SessionKeys.KeyError.none) { try SessionKeys(texts: ["", " "]) }
    }

    @Test("the identifier is read from a token's first 22 characters, checked byte by byte")
    func identifierOfToken() {
        let token = SessionToken(id: SessionIdentifier.make(), viewURI: "hub:home", issuedAt: 1, keys: .ephemeral())
        #expect(SessionToken.identifier(of: token.encoded) == token.id)
        for garbage in ["", token.id, String(token.id.dropLast()), token.id + "x", token.id + "sabc", String(token.id.dropLast()) + "=.",
                        String(token.id.dropLast()) + "é.", token.id + "." + String(repeating: "a", count: 1002)] {
            #expect(SessionToken.identifier(of: garbage) == nil, "\(garbage)")
        }
        // Exactly the base64url alphabet is accepted, in every position.
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        for byte in UInt8.min...UInt8.max {
            let id = String(decoding: [UInt8](repeating: UInt8(ascii: "A"), count: 21) + [byte], as: UTF8.self)
            #expect(SessionIdentifier.isWellFormed(id) == alphabet.contains(byte), "byte \(byte)")
            #expect(SessionIdentifier.isIdentifierByte(byte) == alphabet.contains(byte), "byte \(byte)")
        }
    }

    @Test("after a restart an old token works for GET, next-page, events and actions, rebuilt and counted")
    func survivesRestart() async throws {
        let upstream = try makeStandardUpstream()
        let directory = try Fixture.config(upstream: upstream.base).write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let fixture = Fixture()
        do {
            let (pages, actions) = try await withHub(directory: directory, extensions: fixture.extensions) { client, _ in
                let pages = try #require(try await client.view("hub:pages").header("Hub-Session"))
                let actions = try #require(try await client.view("hub:actions").header("Hub-Session"))
                #expect(try await client.post("/view/next-page", #"{"session":"\#(pages)"}"#).status == 200)
                return (pages, actions)
            }
            try await withHub(directory: directory, extensions: fixture.extensions, transport: .socket) { client, _ in
                let view = try await client.session(pages)
                #expect(view.status == 200, "\(view)")
                #expect(view.header("Hub-Session") == pages)
                #expect(try await Self.metric(client, #"hub_sessions_rebuilt_total{reason="unknown"}"#) == 1)
                let next = try await client.post("/view/next-page", #"{"session":"\#(pages)"}"#)
                #expect(next.status == 200)
                #expect(next.header("Hub-Session") == pages)
                let stream = try await client.events(session: actions)
                defer { stream.close() }
                #expect(stream.status == 200)
                #expect(stream.header("Hub-Session") == actions)
                #expect(try await stream.next().event == "view")
                let action = try await client.action(#"{"session":"\#(actions)","action":"test:ok"}"#)
                #expect(action.status == 200, "\(action)")
                #expect(action.header("Hub-Session") == actions)
                // hub:actions was the first view of its kind in the old process (a memo miss, so
                // stored, not lazy): its token's first use here is a rebuild too.
                #expect(try await Self.metric(client, #"hub_sessions_rebuilt_total{reason="unknown"}"#) == 2)
            }
        } catch {
            upstream.stop()
            throw error
        }
        upstream.stop()
    }

    @Test("garbage tokens are 404 on every endpoint, DELETE included")
    func garbageIsNotFound() async throws {
        try await withHub(Hardening.config(), extensions: Hardening.extensions()) { client, _ in
            for garbage in ["nope", "AAAAAAAAAAAAAAAAAAAAAA.s!!", String(repeating: "A", count: 21)] {
                try expectProblem(try await client.session(garbage), 404, "session_not_found")
                try expectProblem(try await client.post("/view/next-page", #"{"session":"\#(garbage)"}"#), 404, "session_not_found")
                try expectProblem(try await client.action(#"{"session":"\#(garbage)","action":"todo:add"}"#), 404, "session_not_found")
                let events = try await client.get("/view/events?session=\(client.encode(garbage))")
                try expectProblem(events, 404, "session_not_found")
            }
            // A token of another key is not this server's: 404, recorded nowhere.
            let stranger = SessionToken(id: SessionIdentifier.make(), viewURI: "hub:static", issuedAt: 1, keys: .ephemeral()).encoded
            try expectProblem(try await client.delete("/view?session=\(stranger)"), 404, "session_not_found")
        }
    }

    @Test("memoized views store no session until used; /health stays flat")
    func lazySessions() async throws {
        try await withHub(Hardening.config(), extensions: Hardening.extensions()) { client, _ in
            // The first view runs the chain (a memo miss) and stores its session; the rest are memo hits.
            #expect(try await client.view("hub:static").status == 200)
            #expect(try await client.get("/health").json()["sessions"]?.intValue == 1)
            var tokens: [String] = []
            for _ in 0..<50 { tokens.append(try #require(try await client.view("hub:static").header("Hub-Session"))) }
            #expect(Set(tokens).count == 50)
            #expect(try await client.get("/health").json()["sessions"]?.intValue == 1)
            #expect(try await client.session(tokens[0]).status == 200)
            #expect(try await client.get("/health").json()["sessions"]?.intValue == 2)
            #expect(try await Self.metric(client, #"hub_sessions_rebuilt_total{reason="unknown"}"#) == 0, "a first use is no rebuild")
        }
    }

    @Test("a used session survives a flood of ten times sessions.max one-shot views, without a rebuild")
    func usedSessionSurvivesFlood() async throws {
        let server = """
            { "host": "127.0.0.1", "port": 0, "sessions": { "max": 20 }, "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" },
              "limits": { "sessionsPerClient": { "perSecond": 1000, "burst": 10000 } } }
            """
        let store = TodoStore()
        try await withHub(Hardening.config(server: server), extensions: Hardening.extensions(store: store), transport: .socket) { client, _ in
            let todo = try #require(try await client.view("hub:todo").header("Hub-Session"))
            let added = try await client.action(#"{"session":"\#(todo)","action":"todo:add","custom":{"title":"keep me"}}"#)
            #expect(try added.json()["performed"]?.boolValue == true)
            let listened = try #require(try await client.view("hub:todo").header("Hub-Session"))
            let stream = try await client.events(session: listened)
            defer { stream.close() }
            _ = try await stream.next()
            for _ in 0..<200 {
                #expect(try await client.view("hub:todo").status == 200)  // stored, never used again
            }
            #expect(try await Self.metric(client, #"hub_sessions_ended_total{reason="evicted"}"#) >= 180)
            let view = try await client.session(todo).json()
            #expect(view.bodyIDs.contains { id in view.component(id)?["text"]?["title"]?.stringValue == "keep me" })
            for reason in ["evicted", "expired", "unknown"] {
                #expect(try await Self.metric(client, #"hub_sessions_rebuilt_total{reason="\#(reason)"}"#) == 0)
            }
            let action = try await client.action(#"{"session":"\#(listened)","action":"todo:add","custom":{"title":"live"}}"#)
            #expect(action.status == 200)
            #expect(try await stream.next().data.contains("live"), "the listener was not evicted either")
        }
    }

    @Test("Last-Event-ID: the current view's id sends no duplicate; an older id gets the current view first")
    func lastEventID() async throws {
        try await withHub(Hardening.config(), extensions: Hardening.extensions(), transport: .socket) { client, _ in
            let session = try #require(try await client.view("hub:todo").header("Hub-Session"))
            let first = try await client.events(session: session)
            let current = try await first.next()
            first.close()
            let currentID = try #require(current.id)
            #expect(currentID.count > 8)

            // Reconnect with the current id: the next event is the next change, not a duplicate.
            let resumed = try await client.events(session: session, lastEventID: currentID)
            defer { resumed.close() }
            _ = try await client.action(#"{"session":"\#(session)","action":"todo:add","custom":{"title":"after"}}"#)
            let next = try await resumed.next()
            #expect(next.id != currentID)
            #expect(next.data.contains("after"))

            // Reconnect with the older id: the current view comes first.
            let behind = try await client.events(session: session, lastEventID: currentID)
            defer { behind.close() }
            let caughtUp = try await behind.next()
            #expect(caughtUp.id == next.id)
        }
    }
}
