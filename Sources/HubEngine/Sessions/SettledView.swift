import HubPrimitives
import HubSync
import Synchronization

/// A session's view while nothing is queued or running, published in the session store so that
/// a load the reload policy answers without a run (`GET /view?session=` under `reload: never`,
/// within `maxAge`, or under `reload: always` when the chain memo would answer the re-run with
/// this view: ``MemoizedRerun``) is served by the caller's thread, without a hop onto the
/// session's actor and back. One session hammered from every event loop otherwise serializes them all on its
/// actor (docs/PERFORMANCE.md).
///
/// Published by the session itself (``ViewSession/publishSettled()``) once a client has loaded
/// it again, so one-shot sessions never carry one; withdrawn and retired before anything
/// changes what a load would answer: queued work, an action, a config reload, the end. A load
/// answered here records its request as the session's latest (operations see the headers of
/// the latest request); the session adopts it when it retires this view, before any run.
final class SettledView: Sendable {
    let state: ViewState
    let connectivity: Connectivity
    let reloadPolicy: ReloadPolicy
    let loadedAt: ContinuousClock.Instant
    /// The session's request when it published this view.
    let baseline: ViewRequest
    /// The definitions' generation the session had checked its feature against
    /// (``EngineDefinitions/generation``): an older one answers nothing.
    let generation: Int
    /// Under `reload: always`, set when a re-run would be answered by the chain memo with this
    /// view: what a load answers instead of re-running.
    let rerun: MemoizedRerun?

    /// What a re-run of a memoized chain would give, while nothing it depends on changed. A
    /// class: a settled view of a chain that is not memoizable (most held sessions' own views)
    /// holds a pointer for it, not the whole answer inline.
    final class MemoizedRerun: Sendable {
        /// The view with the timings a memo hit reports (memoized, no time spent).
        let state: ViewState
        /// The feature whose chain it is (a load answered here is reported as a memo hit).
        let featureIdentifier: String
        /// What keeps the chain's memo keys valid.
        let checks: MemoKeyChecks

        init(state: ViewState, featureIdentifier: String, checks: MemoKeyChecks) {
            self.state = state
            self.featureIdentifier = featureIdentifier
            self.checks = checks
        }

        var isValid: Bool { checks.pass }
    }

    /// The newest request a load answered here; `retired` once the session moved on (a load
    /// arriving later must go to the session, whose answer may differ). Made by the first load
    /// of another request or by ``retire()``, whichever comes first (``latestRecord``): a held
    /// session's settled view that is only loaded the same way, as most are, carries none.
    private let latest = WriteOnceReference<Locked<(request: ViewRequest?, retired: Bool)>>()
    /// Mirrors of `latest` read without its lock: a load whose request is the baseline's again
    /// (a client polling with the same headers) records nothing while no other request was.
    private let retiredFlag = Atomic<Bool>(false)
    private let recordedOther = Atomic<Bool>(false)

    init(
        state: ViewState, connectivity: Connectivity, reloadPolicy: ReloadPolicy, loadedAt: ContinuousClock.Instant,
        baseline: ViewRequest, generation: Int, rerun: MemoizedRerun? = nil
    ) {
        self.generation = generation
        self.rerun = rerun
        self.state = state
        self.connectivity = connectivity
        self.reloadPolicy = reloadPolicy
        self.loadedAt = loadedAt
        self.baseline = baseline
    }

    /// The state a load answers, without running anything, when its request is the same client
    /// request as ``baseline`` (`isBaseline(baseline)`), as ``answer(_:now:)`` would answer that
    /// request; `nil` when this cannot tell without the request: `isBaseline` says no, another
    /// request was recorded since, or the policy asks for a run. Nothing is recorded (the
    /// session's request is already the baseline's), so the caller need not make the request.
    /// `now` is read only under `maxAge`.
    func answerBaseline(_ isBaseline: (ViewRequest) -> Bool, now: () -> ContinuousClock.Instant) -> ViewState? {
        guard baseline.connectivity == connectivity, !recordedOther.load(ordering: .acquiring), isBaseline(baseline)
        else { return nil }
        let answer: ViewState
        switch reloadPolicy {
        case .always:
            guard let rerun, rerun.isValid else { return nil }
            answer = rerun.state
        case .never:
            answer = state
        case .maxAge(let maxAge):
            guard now() - loadedAt < maxAge else { return nil }
            answer = state
        }
        return retiredFlag.load(ordering: .acquiring) ? nil : answer
    }

    /// The state a load of `request` answers without running anything, as
    /// ``ViewSession/load(_:)`` would; `nil` when the session must decide (a connectivity
    /// change, a policy that asks for a run the memo would not answer, or the session moved on).
    /// `now` is read only under `maxAge`.
    func answer(_ request: ViewRequest, now: @autoclosure () -> ContinuousClock.Instant = .now) -> ViewState? {
        guard request.connectivity == connectivity else { return nil }
        switch reloadPolicy {
        case .always:
            // The memo answers the re-run only for the inputs its key was made from: the same
            // client request as the baseline, none other recorded, every key still valid.
            guard let rerun, !recordedOther.load(ordering: .acquiring), request.sameClientRequest(as: baseline),
                rerun.isValid
            else { return nil }
            return retiredFlag.load(ordering: .acquiring) ? nil : rerun.state
        case .never: break
        case .maxAge(let maxAge): guard now() - loadedAt < maxAge else { return nil }
        }
        // The same client request as the baseline, and no other recorded: nothing to record
        // (the session's request is already this one, but for its trace context).
        if !recordedOther.load(ordering: .acquiring), request.sameClientRequest(as: baseline) {
            return retiredFlag.load(ordering: .acquiring) ? nil : state
        }
        let accepted = latestRecord.withLock { latest -> Bool in
            guard !latest.retired else { return false }
            latest.request = request.withoutTrace()  // kept past this request (``ViewRequest/withoutTrace()``)
            recordedOther.store(true, ordering: .releasing)
            return true
        }
        return accepted ? state : nil
    }

    /// ``latest``, made now if no one made it yet (every caller then shares the one stored).
    private var latestRecord: Locked<(request: ViewRequest?, retired: Bool)> {
        if let made = latest.load() { return made }
        return latest.storeIfNil(Locked((nil, false)))
    }

    /// Ends this view: later loads go to the session. Returns the newest request a load answered
    /// here, for the session to adopt.
    func retire() -> ViewRequest? {
        latestRecord.withLock { latest in
            latest.retired = true
            retiredFlag.store(true, ordering: .releasing)
            return latest.request
        }
    }
}

extension ViewRequest {
    /// Whether `other` asks for the same view with the same client inputs: URI, connectivity,
    /// languages, negotiated locale, client, components and headers, except the W3C trace context (`traceparent`,
    /// `tracestate`), which names each request rather than the client.
    func sameClientRequest(as other: ViewRequest) -> Bool {
        guard viewURI == other.viewURI, connectivity == other.connectivity, languages == other.languages,
            locale == other.locale, client == other.client, clientComponents == other.clientComponents, user == other.user
        else { return false }
        // Both header lists in step, each skipping its trace context fields (no iterators: this
        // runs on every `GET /view?session=` of a settled view).
        let mine = headers, theirs = other.headers
        var left = 0, right = 0
        while true {
            while left < mine.count, Self.isTraceContext(mine[left].name) { left += 1 }
            while right < theirs.count, Self.isTraceContext(theirs[right].name) { right += 1 }
            guard left < mine.count, right < theirs.count else { return left == mine.count && right == theirs.count }
            guard mine[left].name == theirs[right].name, mine[left].value == theirs[right].value else { return false }
            left += 1
            right += 1
        }
    }

    static func isTraceContext(_ name: String) -> Bool {
        name.utf8.count >= 10
            && (name.asciiCaseInsensitiveEquals("traceparent") || name.asciiCaseInsensitiveEquals("tracestate"))
    }
}
