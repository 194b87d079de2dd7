import HubModel
import Synchronization

/// What every session of an engine shares: registries, deadlines, defaults, the chain memo.
/// A class: every session holds a reference, not a copy.
final class SessionEnvironment: Sendable {
    /// The engine's current features, actions and chain settings (replaced by a config reload).
    let definitions: EngineDefinitions
    /// Pages a session may load at most.
    let maxPages: Int
    /// Chain runs under way across the engine (for a drain to wait on).
    let activity: ActivityCounter
    let memo: ChainMemo?
    let chainObserver: (@Sendable (ChainReport) -> Void)?
    /// Reload re-runs and token rejections, for metrics.
    let counters: EngineCounters
    /// The clock a view's age is measured with (``ViewEngine/Configuration/viewClock``).
    let viewClock: @Sendable () -> ContinuousClock.Instant
    /// Takes a session whose loads all failed out of the engine's store (a no-op for one that
    /// is not there: ended, evicted, or never kept).
    let withdrawViewless: @Sendable (String) -> Void
    /// Replaces the session's published ``SettledView`` in the store (`nil` withdraws it);
    /// returns the one replaced. A no-op returning `nil` for a session the store does not hold.
    let replaceSettled: @Sendable (ViewSession, SettledView?) -> SettledView?
    /// Tells the store what a session holds now (``ViewSession/retainedBytesEstimate``).
    let resized: @Sendable (ViewSession, Int) -> Void
    /// Where operations' and actions' state lives, and how it is bounded.
    let stateStore: any StateStore
    let stateSettings: StateSettings
    /// Which sessions follow which state keys.
    let stateWatchers = StateWatchers()
    /// The deadlines of the operations under way (one timer for all of them).
    let deadlines = DeadlineScheduler()
    /// Seconds since the Unix epoch (state TTLs).
    let wallClock: @Sendable () -> Int64
    /// Told of every state re-run loop a session's guard stopped (``StateRerunGuard``).
    let stateLoopObserver: (@Sendable (StateRerunLoop) -> Void)?

    init(
        definitions: EngineDefinitions, maxPages: Int, activity: ActivityCounter, memo: ChainMemo?,
        chainObserver: (@Sendable (ChainReport) -> Void)?, counters: EngineCounters = EngineCounters(),
        viewClock: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        withdrawViewless: @escaping @Sendable (String) -> Void,
        replaceSettled: @escaping @Sendable (ViewSession, SettledView?) -> SettledView? = { _, _ in nil },
        resized: @escaping @Sendable (ViewSession, Int) -> Void = { _, _ in },
        stateStore: any StateStore = MemoryStateStore(), stateSettings: StateSettings = StateSettings(),
        wallClock: @escaping @Sendable () -> Int64 = EngineDefaults.systemWallClock,
        stateLoopObserver: (@Sendable (StateRerunLoop) -> Void)? = nil
    ) {
        self.stateLoopObserver = stateLoopObserver
        self.stateStore = stateStore
        self.stateSettings = stateSettings
        self.wallClock = wallClock
        self.counters = counters
        self.viewClock = viewClock
        self.replaceSettled = replaceSettled
        self.resized = resized
        self.definitions = definitions
        self.maxPages = maxPages
        self.activity = activity
        self.memo = memo
        self.chainObserver = chainObserver
        self.withdrawViewless = withdrawViewless
    }
}

extension SessionEnvironment {
    /// The action registry now (a reload may have replaced it since the session opened).
    var actions: ActionRegistry { definitions.actions }
    var operationDeadline: Duration { definitions.operationDeadline }
    var componentDefaults: ComponentDefaults { definitions.componentDefaults }
}

/// A count shared by every session of an engine: chain runs under way.
final class ActivityCounter: Sendable {
    let value = Atomic<Int>(0)
}
