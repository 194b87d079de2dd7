import HubHTTP
import HubSync
import Testing

/// A request's trace on its ``RequestContext``: set from a client's `traceparent`, or started and
/// made on its first read (never when nothing reads it), the same on every read.
@Suite struct RequestTraceTests {
    /// A `make` that counts its calls and numbers its traces.
    final class Maker: Sendable {
        let calls = Locked(0)
        func make() -> String {
            let call = calls.withLock { count -> Int in
                count += 1
                return count
            }
            return "00-\(String(repeating: "a", count: 31))\(call)-00f067aa0ba902b7-00"
        }
    }

    /// The `traceParent`s 32 tasks read at once from `context`.
    static func parentsReadAtOnce(_ context: RequestContext) async -> Set<String?> {
        await withTaskGroup(of: String?.self) { group in
            for _ in 0..<32 { group.addTask { context.traceParent } }
            var parents: Set<String?> = []
            for await parent in group { parents.insert(parent) }
            return parents
        }
    }

    @Test func aStartedTraceIsMadeOnTheFirstReadOnly() {
        let maker = Maker()
        let context = RequestContext(requestId: "r")
        context.startTrace { maker.make() }
        #expect(maker.calls.withLock { $0 } == 0, "nothing read the trace: none was made")
        let first = context.trace
        #expect(first.parent?.hasSuffix("1-00f067aa0ba902b7-00") == true)
        #expect(first.state == nil)
        #expect(context.traceParent == first.parent)
        #expect(context.trace.parent == first.parent)
        #expect(maker.calls.withLock { $0 } == 1, "made once, then kept")
    }

    @Test func concurrentFirstReadsAgreeOnOneTrace() async {
        let maker = Maker()
        let context = RequestContext(requestId: "r")
        context.startTrace { maker.make() }
        let parents = await Self.parentsReadAtOnce(context)
        #expect(parents.count == 1)
        #expect(parents.first.flatMap { $0 } != nil)
    }

    @Test func aSetTraceReplacesAStartedOne() {
        let maker = Maker()
        let context = RequestContext(requestId: "r")
        context.startTrace { maker.make() }
        context.setTrace(parent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", state: "congo=t61rcWkgMzE")
        #expect(context.trace.parent == "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        #expect(context.trace.state == "congo=t61rcWkgMzE")
        #expect(maker.calls.withLock { $0 } == 0)
    }

    @Test("a begun trace (a client's, continued) is made with its state on the first read only, once under concurrent reads")
    func aBegunTraceIsMadeOnTheFirstReadWithItsState() async {
        let maker = Maker()
        let context = RequestContext(requestId: "r")
        context.beginTrace { (maker.make(), "congo=t61rcWkgMzE") }
        #expect(maker.calls.withLock { $0 } == 0, "nothing read the trace: none was made")
        let parents = await Self.parentsReadAtOnce(context)
        #expect(parents.count == 1)
        #expect(context.trace.parent == parents.first.flatMap { $0 })
        #expect(context.trace.state == "congo=t61rcWkgMzE")
        // A race may make it twice; the first stored is the trace, and no read makes it again.
        let made = maker.calls.withLock { $0 }
        _ = context.trace
        #expect(maker.calls.withLock { $0 } == made)
    }

    @Test func startingOrSettingATraceReplacesABegunOne() {
        let maker = Maker()
        let context = RequestContext(requestId: "r")
        context.beginTrace { (maker.make(), "congo=t61rcWkgMzE") }
        context.startTrace { maker.make() }
        #expect(context.trace.state == nil, "a started trace has no state")
        #expect(context.trace.parent?.hasSuffix("1-00f067aa0ba902b7-00") == true)
        context.beginTrace { (maker.make(), "b=1") }
        context.setTrace(parent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", state: nil)
        #expect(context.trace.parent == "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        #expect(context.trace.state == nil)
        #expect(maker.calls.withLock { $0 } == 1)
    }

    @Test func noTraceUntilOneIsSetOrStarted() {
        let context = RequestContext(requestId: "r")
        #expect(context.traceParent == nil)
        #expect(context.trace.state == nil)
    }
}
