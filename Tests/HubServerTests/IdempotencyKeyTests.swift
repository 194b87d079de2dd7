import Foundation
import HubDemo
import HubEngine
import HubModel
import HubServer
import HubSync
import HubTestSupport
import Testing

/// `Idempotency-Key` on `POST /action` (the default SQLite state store), and revocation that
/// records only tokens that named something stored.
@Suite("Idempotency-Key and revocation records")
struct IdempotencyKeyTests {
    static func add(_ token: String, _ title: String) -> String {
        #"{"session":"\#(token)","action":"todo:add","custom":{"title":"\#(title)"}}"#
    }

    static func todoCount(_ client: HubClient, _ token: String) async throws -> Int? {
        try await client.session(token).json()["custom"]?["todoCount"]?.intValue
    }

    @Test("a retried todo:add with the same key adds one item and answers the first answer (Idempotent-Replayed: true); another body is 422; without a key the retry adds again")
    func retriedAddAddsOnce() async throws {
        try await withHub(Hardening.config(server: SharedStateTests.server), extensions: Hardening.extensions()) { client, _ in
            let token = try #require(try await client.view("hub:todo").header("Hub-Session"))
            let start = try #require(try await Self.todoCount(client, token), "the demo list's first items")
            let first = try await client.action(Self.add(token, "milk"), headers: [("Idempotency-Key", #""k1""#)])
            #expect(first.status == 200)
            #expect(first.header("Idempotent-Replayed") == nil)
            for _ in 0..<3 {
                let retry = try await client.action(Self.add(token, "milk"), headers: [("Idempotency-Key", #""k1""#)])
                #expect(retry.status == 200)
                #expect(retry.header("Idempotent-Replayed") == "true")
                #expect(retry.body == first.body)
                #expect(retry.header("Hub-Session") == token && retry.header("ETag") == first.header("ETag"))
            }
            #expect(try await Self.todoCount(client, token) == start + 1)
            try expectProblem(
                try await client.action(Self.add(token, "eggs"), headers: [("Idempotency-Key", #""k1""#)]), 422,
                "idempotency_key_reused")
            #expect(try await Self.todoCount(client, token) == start + 1)
            // A bare token is a key too, and the same key on another session is another key.
            #expect(try await client.action(Self.add(token, "tea"), headers: [("Idempotency-Key", "k2")]).status == 200)
            #expect(try await client.action(Self.add(token, "tea"), headers: [("Idempotency-Key", "k2")]).header("Idempotent-Replayed") == "true")
            let other = try #require(try await client.view("hub:todo").header("Hub-Session"))
            let elsewhere = try await client.action(Self.add(other, "milk"), headers: [("Idempotency-Key", #""k1""#)])
            #expect(elsewhere.status == 200 && elsewhere.header("Idempotent-Replayed") == nil)
            #expect(try await Self.todoCount(client, token) == start + 2)
            // The way around: without a key, a retry performs again.
            #expect(try await client.action(Self.add(token, "jam")).status == 200)
            #expect(try await client.action(Self.add(token, "jam")).status == 200)
            #expect(try await Self.todoCount(client, token) == start + 4)
        }
    }

    @Test("an answer over state.maxValueBytes keeps only whether the action was performed: the replay carries the session's view as it is then, and adds nothing")
    func largeAnswerReplaysTheLatestView() async throws {
        let server = #"{ "host": "127.0.0.1", "port": 0, "log": { "level": "error" }, "state": { "maxValueBytes": 600 } }"#
        try await withHub(Hardening.config(server: server), extensions: Hardening.extensions()) { client, _ in
            let token = try #require(try await client.view("hub:todo").header("Hub-Session"))
            let start = try #require(try await Self.todoCount(client, token))
            let title = String(repeating: "x", count: 100)
            let first = try await client.action(Self.add(token, title), headers: [("Idempotency-Key", "big")])
            #expect(first.status == 200 && first.body.count > 600, "an answer larger than a state value may be")
            let retry = try await client.action(Self.add(token, title), headers: [("Idempotency-Key", "big")])
            #expect(retry.status == 200 && retry.header("Idempotent-Replayed") == "true")
            #expect(try retry.json()["performed"]?.boolValue == true)
            #expect(try retry.json()["view"] == first.json()["view"], "nothing changed since: the same view")
            #expect(try await Self.todoCount(client, token) == start + 1)
        }
    }

    @Test("Idempotency-Key values: a structured-field string or token of up to 255 bytes; anything else is 400 invalid_idempotency_key and performs nothing")
    func keyValues() async throws {
        try await withHub(Hardening.config(server: SharedStateTests.server), extensions: Hardening.extensions()) { client, _ in
            let token = try #require(try await client.view("hub:todo").header("Hub-Session"))
            let start = try #require(try await Self.todoCount(client, token), "the demo list's first items")
            let longest = String(repeating: "a", count: 255)
            let accepted = [#""a b\"c\\d""#, "*tok:en/1", "\"\(longest)\"", String(repeating: "b", count: 255)]
            for (index, key) in accepted.enumerated() {
                #expect(try await client.action(Self.add(token, "ok \(index)"), headers: [("Idempotency-Key", key)]).status == 200, "\(key)")
            }
            for key in ["\"\"", "\"open", "\"\(longest)a\"", "\(longest)a", "1abc", "a b", "\"tab\there\"", "\"bad\\escape\""] {
                try expectProblem(
                    try await client.action(Self.add(token, "bad"), headers: [("Idempotency-Key", key)]), 400,
                    "invalid_idempotency_key")
            }
            try expectProblem(
                try await client.action(Self.add(token, "bad"), headers: [("Idempotency-Key", "a"), ("Idempotency-Key", "b")]),
                400, "invalid_idempotency_key")
            #expect(try await Self.todoCount(client, token) == start + 4)
        }
    }

    @Test("a duplicate arriving while the first still runs is 409 idempotency_key_in_use (another body: 422); once the first answers, the retry replays it and the action ran once")
    func inFlightDuplicate() async throws {
        let gate = ThreadGate()
        let entered = Counter()
        var extensions = Hardening.extensions()
        extensions.registerActionFactory(
            "gate",
            ClosureActionFactory([
                "wait": { _ in
                    entered.increment()
                    // Held on a thread of its own, not on the cooperative pool, until the test opens it.
                    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                        Thread { gate.wait(); done.resume() }.start()
                    }
                    return ActionResult(performed: true)
                }
            ]))
        var config = Hardening.config(server: SharedStateTests.server)
        config["actions.json"] = #"{ "todo": { "kind": "swift", "name": "todo" }, "gate": { "kind": "swift", "name": "gate" } }"#
        try await withHub(config, extensions: extensions, transport: .socket) { client, _ in
            let token = try #require(try await client.view("hub:static").header("Hub-Session"))
            let body = #"{"session":"\#(token)","action":"gate:wait"}"#
            async let first = client.action(body, headers: [("Idempotency-Key", #""g1""#)])
            #expect(await eventually { entered.count == 1 })
            try expectProblem(try await client.action(body, headers: [("Idempotency-Key", #""g1""#)]), 409, "idempotency_key_in_use")
            try expectProblem(
                try await client.action(#"{"session":"\#(token)","action":"gate:wait","custom":{"x":1}}"#,
                    headers: [("Idempotency-Key", #""g1""#)]), 422, "idempotency_key_reused")
            gate.open()
            let answered = try await first
            #expect(answered.status == 200)
            let retry = try await client.action(body, headers: [("Idempotency-Key", #""g1""#)])
            #expect(retry.status == 200 && retry.header("Idempotent-Replayed") == "true" && retry.body == answered.body)
            #expect(entered.count == 1, "performed once")
        }
    }

    @Test("revoking 1,000 lazy tokens that never named a stored session records nothing (204 each); a used one is recorded and refused")
    func lazyTokensAreForgotten() async throws {
        // A store of its own (the test process's SQLite file holds other tests' revocations).
        var environment = testEnvironment
        environment["HUB_STATE_BACKEND"] = "memory"
        try await withHub(Hardening.config(server: SharedStateTests.server), extensions: Hardening.extensions(), environment: environment) { client, app in
            _ = try await client.view("hub:static")  // the chain runs once; later views are memo hits
            for _ in 0..<1000 {
                let token = try #require(try await client.view("hub:static").header("Hub-Session"))
                #expect(token.split(separator: ".")[1].hasPrefix("l"), "a lazy token")
                #expect(try await client.delete("/view?session=\(token)").status == 204)
            }
            #expect(app.engine.revokedTokens == 0)
            #expect(try await client.metric("hub_session_tokens_revoked") == 0)
            let stored = try await app.engine.stateStore.records(withPrefix: "revoked/", now: EngineDefaults.systemWallClock())
            #expect(stored.count == 0)
            // The way around: a lazy token that was used names a stored session: recorded, refused.
            let used = try #require(try await client.view("hub:static").header("Hub-Session"))
            #expect(try await client.session(used).status == 200)
            #expect(try await client.delete("/view?session=\(used)").status == 204)
            #expect(app.engine.revokedTokens == 1)
            try expectProblem(try await client.session(used), 404, "session_not_found")
        }
    }
}
