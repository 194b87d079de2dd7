import Synchronization
import HubModel
import HubSync

/// One client's view: its content loading chain, snapshots, current view model and
/// subscribers. An actor, so one chain runs at a time per session while many sessions run
/// in parallel (DESIGN.md "The chain").
///
/// Work arrives as queued runs (a full or partial main run, or a page). The queue drains in
/// order; callers that asked for work wait until it has drained, and the view model is
/// emitted once per drain (S92, S101, S124).
public actor ViewSession {
    /// Unguessable identifier (128 random bits, URL-safe).
    public nonisolated var id: String { token.id }
    /// What clients hold for this session (`Hub-Session`): the identifier and what rebuilds it.
    public nonisolated let token: SessionToken
    /// The feature serving the session; a config reload that changes it replaces it (with the
    /// operations) before the next full run.
    public internal(set) var feature: Feature
    /// The view URI the session was opened for.
    public nonisolated let viewURI: String
    /// The verified user who opened the session (its token is bound to them); `nil`: anonymous.
    public nonisolated let user: HubUser?
    /// The locale the session was opened with (its token carries it); every later request of
    /// the session is read in it (``pinned(_:)``). `nil` when none was negotiated.
    public nonisolated let locale: String?
    /// Live subscriber count, readable without the actor: the store closes an evicted or
    /// expired session only when someone is listening (closing ends their streams).
    nonisolated let subscriberGauge = Atomic<Int>(0)
    /// What the session holds, as ``retainedBytesEstimate`` reads it without the actor.
    nonisolated let retainedBytes = Atomic<Int>(ViewSession.baseBytes)
    /// The upstream content its latest runs built from (``ContentSources``), readable without
    /// the actor: ``ViewEngine/invalidate(_:)`` looks through every session.
    nonisolated let usedContent = Locked<ContentUse?>(nil)

    var operations: [any ContentOperation]
    let environment: SessionEnvironment
    /// What most sessions never use (failures, listeners, actions, reloads): allocated on first
    /// write, so a session that is only looked at stays small (memory per session).
    var extras: SessionExtras?

    /// The latest request (operations see its headers and languages).
    var request: ViewRequest

    /// `snapshots[i]`: the builder op i left in its latest run (S90).
    var snapshots: Snapshots
    /// `errors[i]`: the error of op i's latest run (S93).
    var errors: OperationErrors
    var timings: [OperationTiming]
    /// 0 until the first page; +1 per page chain; reset by a full reload (DESIGN.md).
    var pageIndex = 0

    var currentViewModel: ViewModel?
    var version = 0
    var loadedAt: ContinuousClock.Instant?
    /// The memo key when the snapshots are exactly a memoized full run's; `nil` otherwise.
    var memoizedRunKey: String?
    /// The chain memo's key as the engine made it for the first run (`.some(nil)`: not
    /// memoizable), so the first run does not make it again; cleared by that run.
    var preparedMemoKey: String??

    enum Work: Equatable {
        case main(from: Int)
        case page
    }

    var queue: [Work] = []
    var waiters: [CheckedContinuation<ViewState, Never>] = []
    /// The definitions' generation this session last checked its feature against
    /// (``catchUp()``).
    var validatedGeneration: Int
    /// The state keys each operation's latest run read, with the versions it saw (here, not in
    /// ``extras``: a session whose operations read state has actions that write it, and the
    /// extras box would cost more than these three fields).
    var stateReads: [StateRead] = []
    /// Versions this session's own actions wrote and whose re-run is scheduled.
    var awaitedStateVersions: [StateKey: Int64] = [:]
    /// The state logs of the chain run and the actions under way: a change the session wrote
    /// itself is not a change to re-run for (``stateDidChange(_:version:)``).
    var ownStateLogs: [StateTouchLog] = []

    // The one-byte fields together (a session's object keeps its fields in this order, each
    // aligned: scattered, every one of them took eight bytes).

    /// The stored connectivity state (S110).
    var connectivity: Connectivity
    /// The last operation's snapshot was dropped once its view model was built
    /// (``releaseUnneededSnapshots()``); the next run sets it again.
    var lastSnapshotReleased = false
    var isDriving = false
    var isClosed = false
    /// A client loaded the session again: it publishes its settled view (``SettledView``).
    var publishesSettled = false
    /// An invalidation named content its view was built from: its next load re-runs the
    /// chain whatever the reload policy (``markContentInvalidated()``).
    var contentInvalidated = false
    /// A client action is being performed (``perform(_:request:)`` runs one at a time).
    var actionTurnTaken = false
    /// What the session's first full chain run found of its session-scoped state (``RebuiltState``;
    /// `nil`: it read none, or has not run): a rebuild tells its client (`Hub-Rebuilt`).
    var firstRunState: RebuiltState?

    /// A memo hit a session starts from: the memo's snapshots and its shared view model.
    struct MemoizedStart {
        let entry: ChainMemo.Entry
        let viewModel: ViewModel
        let key: String
    }

    deinit {
        environment.stateWatchers.forget(ObjectIdentifier(self))
    }

    /// A new session. With `memoized`, its first full run was a memo hit: it starts loaded,
    /// sharing the memo's snapshots and view model, without running (or scheduling) anything.
    init(
        token: SessionToken, feature: Feature, request: ViewRequest, operations: [any ContentOperation],
        environment: SessionEnvironment, injectedInitialViewModel: ViewModel? = nil, memoized: MemoizedStart? = nil,
        memoKey: String?? = nil
    ) {
        self.preparedMemoKey = memoKey
        if let injectedInitialViewModel {
            let extras = SessionExtras()
            extras.cachedInitialViewModel = injectedInitialViewModel
            self.extras = extras
        }
        self.token = token
        self.feature = feature
        self.viewURI = request.viewURI
        self.user = request.user
        self.locale = request.locale
        self.request = request
        self.connectivity = request.connectivity
        self.operations = operations
        self.environment = environment
        self.validatedGeneration = environment.definitions.generation
        self.snapshots = memoized?.entry.snapshots ?? Snapshots(count: operations.count)
        self.errors = memoized?.entry.errors ?? OperationErrors(count: operations.count)
        self.timings = memoized?.entry.timings ?? []
        if let memoized {
            self.currentViewModel = memoized.viewModel
            self.version = 1
            self.loadedAt = environment.viewClock()
            self.memoizedRunKey = memoized.key
            usedContent.withLock { $0 = memoized.entry.use }
        }
        if let injectedInitialViewModel {
            retainedBytes.store(
                Self.baseBytes + request.retainedBytes + injectedInitialViewModel.estimatedMemoryBytes, ordering: .relaxed)
        } else {
            retainedBytes.store(Self.baseBytes + request.retainedBytes, ordering: .relaxed)
        }
    }

    // MARK: - State

    /// The session's view as of now.
    public var state: ViewState {
        ViewState(viewModel: currentViewModel, version: version, failure: lastFailure, timings: timings)
    }

    /// `true` while work is queued or running (S98).
    public var isLoading: Bool { isDriving || !queue.isEmpty }

    /// Names of the chain's operations, in order.
    public var operationNames: [String] { operations.map(\.name) }

    // MARK: - Loading

    /// Runs the whole chain and waits for the result: the first load of a new session.
    func loadFirst() async -> ViewState {
        await schedule([.main(from: 0)])
    }

    /// Loads the view for `request` (`GET /view?session=`): a connectivity change emits the
    /// initial content and reloads from a blank state (S111); otherwise the feature's reload
    /// policy decides whether to re-run the chain (S105..S109). Before a successful load the
    /// chain always runs.
    public func load(_ request: ViewRequest) async -> ViewState {
        // A bound stream's request (no credentials: the token alone) reads as the session's user.
        let request = pinned(request.user == nil && user != nil ? request.with(user: user) : request)
        catchUp()
        withdrawSettled()
        publishesSettled = true
        let heldBytes = self.request.retainedBytes
        self.request = request
        // A request with other retained headers changes the estimate now (a load that runs no
        // chain updates nothing else).
        if request.retainedBytes != heldBytes { updateRetainedBytes() }
        if request.connectivity != connectivity {
            connectivity = request.connectivity
            emitInitialContent()
            return await schedule([.main(from: 0)])  // once: the S115 double schedule is removed
        }
        if takeContentInvalidation() { return await schedule([.main(from: 0)]) }
        guard currentViewModel != nil, let loadedAt else {
            return await schedule([.main(from: 0)])
        }
        switch feature.reloadPolicy {
        case .always:
            return await schedule([.main(from: 0)])
        case .never:
            return await settledAndPublished()
        case .maxAge(let maxAge):
            if environment.viewClock() - loadedAt >= maxAge { return await schedule([.main(from: 0)]) }
            return await settledAndPublished()
        }
    }

    /// ``settled()``, publishing the view when nothing was under way (a drain publishes its own).
    private func settledAndPublished() async -> ViewState {
        guard isLoading else {
            publishSettled()
            return state
        }
        return await settled()
    }

    /// Re-runs the whole chain, ignoring the reload policy (S108, `hub:reload`).
    public func reload() async -> ViewState {
        catchUp()
        return await schedule([.main(from: 0)])
    }

    /// Re-runs operations `index...` from snapshot `index - 1` (S99) and waits for the result.
    public func reschedule(operationAt index: Int) async -> ViewState {
        guard operations.indices.contains(index) else { return await settled() }
        return await schedule([.main(from: index)])
    }

    /// Runs the chain in pagination mode (S119..S126); a no-op before a successful load or
    /// when no operation is paginated (S119).
    public func loadNextPage() async -> ViewState {
        catchUp()
        return await schedule([.page])
    }

    /// The state once queued work has drained (immediately when idle).
    public func settled() async -> ViewState {
        guard isLoading else { return state }
        return await withCheckedContinuation { waiters.append($0) }
    }

    /// Enqueues work (coalescing main runs, see ``enqueue(_:)``) and waits for the drain.
    func schedule(_ work: [Work]) async -> ViewState {
        for item in work { enqueue(item) }
        return await withCheckedContinuation { continuation in
            waiters.append(continuation)
            startDrivingIfNeeded()
        }
    }

    /// Adds work to the queue. A main run from `i` arriving while the queue's last entry is a
    /// main run from `j` that has not started is merged into `main(from: min(i, j))`: running
    /// `j` then `i` gives the same builder as running from the lower index once (DESIGN.md).
    func enqueue(_ work: Work) {
        withdrawSettled()
        if case .main(let index) = work, case .main(let queued)? = queue.last {
            queue[queue.count - 1] = .main(from: min(index, queued))
            return
        }
        queue.append(work)
    }

    func startDrivingIfNeeded() {
        guard !isDriving, !queue.isEmpty else { return }
        isDriving = true
        // A client that disconnects does not cancel a shared run: the chain runs in its own task.
        environment.activity.value.add(1, ordering: .relaxed)
        Task {
            await self.drive()
            self.environment.activity.value.subtract(1, ordering: .relaxed)
        }
    }

    /// Drains the queue, then emits once (S92).
    func drive() async {
        var ranMain = false
        var ranPage = false
        while !queue.isEmpty {
            let work = queue.removeFirst()
            switch work {
            case .main(let from):
                await runMain(from: from)
                ranMain = true
            case .page:
                if await runPage() { ranPage = true }
            }
        }
        isDriving = false
        queue = []  // its buffer, kept by `removeFirst`, is not held between drains
        if ranMain || ranPage {
            emit()
            environment.chainObserver?(
                ChainReport(featureIdentifier: feature.identifier, timings: timings, failure: lastFailure))
        }
        // Every load so far failed: the session leaves the store before any waiter resumes, so
        // a stored session always has a view model or work under way. A client never got its id
        // (the first load's answer was an error) and it would hold a slot until it expired.
        if currentViewModel == nil { environment.withdrawViewless(id) }
        if queue.isEmpty {
            releaseUnneededSnapshots()
            publishSettled()
        }
        updateRetainedBytes()
        let current = state
        let resumed = waiters
        waiters.removeAll()
        for waiter in resumed { waiter.resume(returning: current) }
    }

    // MARK: - Subscriptions

    /// The current state (when a view model exists), then every change of the view model:
    /// an action, a reschedule, a page, a reload with new content. Finishes when the session
    /// ends.
    public func updates() -> AsyncStream<ViewState> {
        catchUp()
        let (stream, continuation) = AsyncStream.makeStream(of: ViewState.self, bufferingPolicy: .bufferingNewest(8))
        if isClosed {
            continuation.finish()
            return stream
        }
        let subscriberID = nextSubscriberID
        nextSubscriberID += 1
        subscribers[subscriberID] = continuation
        subscriberGauge.add(1, ordering: .relaxed)
        if currentViewModel != nil { continuation.yield(state) }
        // Marked stale by an invalidation while nobody listened: the listener gets the re-run's view.
        if takeContentInvalidation() {
            enqueue(.main(from: 0))
            startDrivingIfNeeded()
        }
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeSubscriber(subscriberID) }
        }
        return stream
    }

    func removeSubscriber(_ subscriberID: Int) {
        if subscribers.removeValue(forKey: subscriberID) != nil { subscriberGauge.subtract(1, ordering: .relaxed) }
    }

    /// Number of live subscribers.
    public var subscriberCount: Int { subscribers.count }

    /// Ends the session: subscribers finish and the session frees what it held. The first
    /// reason given is kept (``endReason``).
    public func close(reason: SessionEndReason = .closed) {
        withdrawSettled()
        if endReason == nil { endReason = reason }
        isClosed = true
        environment.stateWatchers.forget(ObjectIdentifier(self))
        let ended = subscribers.values
        subscribers.removeAll()
        subscriberGauge.store(0, ordering: .relaxed)
        for subscriber in ended { subscriber.finish() }
        snapshots = Snapshots(count: operations.count)
        errors = OperationErrors(count: operations.count)
    }

    func publish() {
        guard !subscribers.isEmpty else { return }
        let current = state
        for subscriber in subscribers.values { subscriber.yield(current) }
    }
}
