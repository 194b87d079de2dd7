@testable import HubEngine
import HubModel
import HubSync
import Testing

/// A change report the store sends for a version an operation's latest run already saw (it
/// read it, then wrote the next) can arrive after the run, late (a slow store, a loaded
/// machine): it is not news and re-runs nothing.
@Suite("State: late reports of what a run saw")
struct LateStateReportTests {
    /// Reads the session's `counter` and writes it back plus one, each run.
    struct Counter: ContentOperation {
        var name: String { "counter" }

        func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
            var seen: Int64 = 0
            try await context.state.update("counter") { value in
                seen = Int64(value?.intValue ?? 0)
                value = .int(Int(seen) + 1)
                return true
            }
            builder.title = String(seen + 1)
        }
    }

    @Test("the report of a version the latest run read and then replaced re-runs nothing; a newer one from elsewhere does")
    func lateReportIgnored() async throws {
        let store = MemoryStateStore()
        var configuration = EngineFixture.configuration
        configuration.stateStore = store
        let engine = try EngineFixture.engine([Counter()], configuration: configuration)
        let (session, first) = try await engine.openSession(for: EngineFixture.request())
        #expect(first.title == "1")
        let second = await session.load(EngineFixture.request())  // reads version 1, writes version 2
        #expect(second.title == "2")
        let key = try StateKey("counter", in: .session, sessionID: session.id)
        let reruns = engine.counters.stateReruns
        await session.stateDidChange(key, version: 1)  // the first run's write, reported late
        #expect(engine.counters.stateReruns == reruns, "a version the run saw is not a change")
        await session.stateDidChange(key, version: 7)  // someone else's write
        #expect(engine.counters.stateReruns == reruns + 1)
    }
}
