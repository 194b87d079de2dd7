import HubModel
import Testing

@testable import HubEngine

/// Which sessions follow which state keys, as keys gain and lose followers (one follower is kept
/// inline, more in a table): every change leaves exactly the followers asked for.
@Suite("State watchers")
struct StateWatchersTests {
    static func sessions(_ count: Int) async throws -> [ViewSession] {
        let engine = try EngineFixture.engine([BlockContentOperation(name: "row") { builder, _ in builder.title = "t" }])
        var sessions: [ViewSession] = []
        for _ in 0..<count { sessions.append(try await engine.openSession(for: EngineFixture.request()).session) }
        return sessions
    }

    static func ids(_ sessions: [ViewSession]) -> Set<String> { Set(sessions.map(\.id)) }

    @Test("a key followed by one, then three, then one session again, then by none")
    func followersComeAndGo() async throws {
        let sessions = try await Self.sessions(3)
        let watchers = StateWatchers()
        let shared = try StateKey("list", in: .subject("team"), sessionID: "any")
        let own = try StateKey("todo", in: .session, sessionID: sessions[0].id)

        watchers.follow(sessions[0], keys: [shared, own])
        #expect(Self.ids(watchers.sessions(following: shared)) == [sessions[0].id])
        #expect(Self.ids(watchers.sessions(following: own)) == [sessions[0].id])

        watchers.follow(sessions[1], keys: [shared])
        watchers.follow(sessions[2], keys: [shared])
        watchers.follow(sessions[2], keys: [shared])  // again: still one entry for it
        #expect(Self.ids(watchers.sessions(following: shared)) == Self.ids(sessions))
        #expect(watchers.sessions(following: shared).count == 3)
        #expect(watchers.sessionCount == 3)

        watchers.forget(ObjectIdentifier(sessions[1]))
        watchers.follow(sessions[2], keys: [])
        #expect(Self.ids(watchers.sessions(following: shared)) == [sessions[0].id])
        #expect(watchers.sessionCount == 1)

        watchers.follow(sessions[0], keys: [own])
        #expect(watchers.sessions(following: shared).isEmpty)
        #expect(Set(watchers.followedKeys) == [own])

        watchers.forget(ObjectIdentifier(sessions[0]))
        #expect(watchers.followedKeys.isEmpty)
        #expect(watchers.sessionCount == 0)
    }
}
