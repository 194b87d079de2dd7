import Foundation
import HubDemo
import HubEngine
import HubModel
import HubServer
import HubTestSupport
import Testing

/// Revocation and retries through a PostgreSQL outage: a replica started while the database is
/// down learns the revocations once it returns (and rebuilds nothing meanwhile), a `DELETE`
/// answered 503 is written when the store returns (its retry answers 204, every replica then
/// refuses the token), and an `Idempotency-Key` answer holds across replicas. Each test that
/// stops the database makes its own cluster.
@Suite("Revocation and retries through a PostgreSQL outage", .serialized)
struct OutageTests {
    static func withReplica(
        _ cluster: PostgresCluster, _ body: (HubClient, HubApplication) async throws -> Void
    ) async throws {
        try await withHub(
            Hardening.config(server: SharedStateTests.server), extensions: Hardening.extensions(),
            environment: SharedStateTests.environment(cluster), transport: .socket, body)
    }

    @Test("a replica started while the database is down answers tokens it does not hold 503 (never rebuilt), serves the ones it holds, and refuses a revoked token (404) once the database returns")
    func replicaStartedDuringOutage() async throws {
        let cluster = try PostgresCluster()
        var revoked = ""
        var kept = ""
        try await Self.withReplica(cluster) { a, _ in
            revoked = try #require(try await a.view("hub:todo").header("Hub-Session"))
            kept = try #require(try await a.view("hub:todo").header("Hub-Session"))
            #expect(try await a.delete("/view?session=\(revoked)").status == 204)
        }
        try cluster.stop()
        try await Self.withReplica(cluster) { b, appB in
            for token in [revoked, kept] {
                let refused = try await b.session(token)
                try expectProblem(refused, 503, "state_unavailable")
                #expect(refused.header("Retry-After") == "1")
            }
            #expect(!appB.engine.revocationsLoaded)
            // A session this replica holds keeps serving.
            let held = try #require(try await b.view("hub:static").header("Hub-Session"))
            #expect(try await b.session(held).status == 200)
            #expect(try await b.metric(#"hub_sessions_rebuilt_total{reason="unknown"}"#) == 0, "nothing rebuilt")

            try cluster.start()
            #expect(await eventually { appB.engine.revocationsLoaded }, "loaded once the database answers")
            try expectProblem(try await b.session(revoked), 404, "session_not_found")
            #expect(try await b.session(kept).status == 200, "a token nobody revoked rebuilds again")
        }
    }

    @Test("a DELETE answered 503 during an outage is refused here at once, answers 204 on retry once the database returns, and the other replica then refuses the token")
    func deleteDuringOutage() async throws {
        let cluster = try PostgresCluster()
        try await SharedStateTests.withReplicas(cluster) { a, b, appA, _ in
            let token = try #require(try await a.view("hub:todo").header("Hub-Session"))
            #expect(try await a.action(#"{"session":"\#(token)","action":"todo:add","custom":{"title":"mine"}}"#).status == 200)
            #expect(try await b.session(token).status == 200, "replica B holds the session too")
            try cluster.stop()

            let refused = try await a.delete("/view?session=\(token)")
            try expectProblem(refused, 503, "state_unavailable")
            #expect(refused.header("Retry-After") == "1")
            #expect(appA.engine.pendingRevocations == 1, "kept until the store returns")
            try expectProblem(try await a.session(token), 404, "session_not_found")
            try expectProblem(try await a.delete("/view?session=\(token)"), 503, "state_unavailable")

            try cluster.start()
            #expect(await eventually { (try? await a.delete("/view?session=\(token)").status) == 204 })
            #expect(appA.engine.pendingRevocations == 0)
            #expect(await eventually { (try? await b.session(token).status) == 404 }, "B learns it from the store")
            try expectProblem(try await b.session(token), 404, "session_not_found")
            #expect(try await b.delete("/view?session=\(token)").status == 204, "revoked already: the same answer")
        }
    }

    @Test("the first answer to an Idempotency-Key holds across two replicas on one PostgreSQL: the retry on the other adds nothing")
    func idempotencyAcrossReplicas() async throws {
        let cluster = try PostgresCluster.shared()
        try await SharedStateTests.withReplicas(cluster) { a, b, _, _ in
            let token = try #require(try await a.view("hub:todo").header("Hub-Session"))
            let start = try #require(try await a.session(token).json()["custom"]?["todoCount"]?.intValue)
            let body = #"{"session":"\#(token)","action":"todo:add","custom":{"title":"once"}}"#
            let first = try await a.action(body, headers: [("Idempotency-Key", #""add-1""#)])
            #expect(first.status == 200 && first.header("Idempotent-Replayed") == nil)
            let retry = try await b.action(body, headers: [("Idempotency-Key", #""add-1""#)])
            #expect(retry.status == 200)
            #expect(retry.header("Idempotent-Replayed") == "true")
            #expect(retry.body == first.body && retry.header("ETag") == first.header("ETag"))
            #expect(try await b.session(token).json()["custom"]?["todoCount"]?.intValue == start + 1)
            try expectProblem(
                try await b.action(#"{"session":"\#(token)","action":"todo:add","custom":{"title":"other"}}"#,
                    headers: [("Idempotency-Key", #""add-1""#)]), 422, "idempotency_key_reused")
        }
    }

    @Test("a write whose connection is lost inside its transaction (its backend killed while it waited for a lock, before COMMIT) wrote nothing: 503 state_unavailable with Retry-After; writes work again once the database has recovered")
    func lostCommitAnswer() async throws {
        let cluster = try PostgresCluster()
        let binaries = try #require(PostgresCluster.binariesDirectory)
        try await Self.withReplica(cluster) { a, _ in
            let token = try #require(try await a.view("hub:todo").header("Hub-Session"))
            // Twice: the second write is an UPDATE, prepared on the connection before the one that is lost
            // (preparing it would wait for the lock too, and a lost PREPARE wrote nothing).
            for title in ["before", "before 2"] {
                #expect(try await a.action(#"{"session":"\#(token)","action":"todo:add","custom":{"title":"\#(title)"}}"#).status == 200)
            }
            // Another connection holds the table: the next write waits for it, sent and unanswered.
            let holder = try ChildProcess(
                executable: binaries + "/psql",
                arguments: ["-h", "127.0.0.1", "-p", String(cluster.port), "-U", "postgres", "-c",
                            "BEGIN; LOCK TABLE hub_state IN EXCLUSIVE MODE; SELECT pg_sleep(60); COMMIT;"],
                environment: ProcessInfo.processInfo.environment)
            defer { holder.terminate() }
            #expect(await eventually {
                (try? Self.value(cluster, "SELECT count(*) FROM pg_locks WHERE mode = 'ExclusiveLock' AND granted AND relation = 'hub_state'::regclass")) == "1"
            })
            async let lost = a.action(#"{"session":"\#(token)","action":"todo:add","custom":{"title":"lost"}}"#)
            var waiting = ""
            #expect(await eventually {
                waiting = (try? Self.value(cluster, "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%hub_state%' LIMIT 1")) ?? ""
                return Int32(waiting) != nil
            })
            // Killed before COMMIT was sent: the write's quota transaction ends uncommitted, so the
            // hub knows nothing was written (only a COMMIT whose answer is lost is
            // state_outcome_unknown).
            kill(try #require(Int32(waiting)), SIGKILL)
            let answer = try await lost
            try expectProblem(answer, 503, "state_unavailable")
            #expect(answer.header("Retry-After") != nil)

            #expect(await eventually {
                (try? await a.action(#"{"session":"\#(token)","action":"todo:add","custom":{"title":"after"}}"#).status) == 200
            })
            let answered = try await a.session(token)
            #expect(answered.status == 200, "the view after the recovery: \(String(decoding: answered.body, as: UTF8.self))")
            let view = try answered.json()
            let titles = view.bodyIDs.compactMap { view.component($0)?["text"]?["title"]?.stringValue }
            #expect(titles.contains("before") && titles.contains("after") && !titles.contains("lost"), "titles: \(titles)")
        }
    }

    /// The first column of the first row `sql` answers, through a file the server writes (the
    /// cluster's psql helper prints nothing back).
    static func value(_ cluster: PostgresCluster, _ sql: String) throws -> String {
        let path = cluster.directory + "/value-\(UInt32.random(in: 0...UInt32.max))"
        defer { unlink(path) }
        try cluster.psql("COPY (\(sql)) TO '\(path)'")
        return String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
