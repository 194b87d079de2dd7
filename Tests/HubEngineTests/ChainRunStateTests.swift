@testable import HubEngine
import HubModel
import Testing

/// What one chain run sees while others arrive, and how a drain waits for runs under way.
@Suite("Chain runs under way")
struct ChainRunStateTests {
    @Test("a run keeps the request it started with; a request arriving meanwhile is the next run's")
    func requestSnapshotPerRun() async throws {
        let gate = TaskGate()
        let first = ContentOperationMock(name: "first") { _, _, number in
            if number == 2 { await gate.pass() }
        }
        let second = ContentOperationMock(name: "second")
        let engine = try EngineFixture.engine([first, second])
        let (session, _) = try await engine.openSession(
            for: ViewRequest(viewURI: EngineFixture.uri, headers: [("X-Run", "1")]))
        let reloading = Task { await session.reload() }
        await gate.arrivals(1)  // run 2 waits inside its first operation
        let loading = Task { await session.load(ViewRequest(viewURI: EngineFixture.uri, headers: [("X-Run", "2")])) }
        // Wait until the load has replaced the session's request (it then queues behind run 2).
        while await session.request.header("X-Run") != "2" { await Task.yield() }
        gate.open()
        _ = await reloading.value
        _ = await loading.value
        let seen = second.calls.map { $0.context.request.header("X-Run") }
        #expect(seen.count == 3)
        #expect(seen[1] == "1", "run 2's later operation saw the request run 2 started with")
        #expect(seen[2] == "2", "the next run saw the new request")
    }

    @Test("waitUntilIdle waits for chain runs under way, and gives up at its timeout")
    func waitUntilIdle() async throws {
        let gate = TaskGate()
        let slow = ContentOperationMock(name: "slow") { _, _, number in
            if number == 2 { await gate.pass() }
        }
        let engine = try EngineFixture.engine([slow])
        let (session, _) = try await engine.openSession(for: EngineFixture.request())
        #expect(engine.runningChains == 0)
        #expect(await engine.waitUntilIdle(timeout: .seconds(5)))
        let reloading = Task { await session.reload() }
        await gate.arrivals(1)
        #expect(engine.runningChains == 1)
        #expect(await engine.waitUntilIdle(timeout: .milliseconds(30)) == false)
        gate.open()
        #expect(await engine.waitUntilIdle(timeout: .seconds(60)))
        #expect(engine.runningChains == 0)
        _ = await reloading.value
    }
}
