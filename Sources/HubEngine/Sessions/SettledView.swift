import HubSync

/// A session's view while nothing is queued or running, published in the session store so that
/// a load the reload policy answers without a run (`GET /view?session=` under `reload: never`,
/// or within `maxAge`) is served by the caller's thread, without a hop onto the session's actor
/// and back. One session hammered from every event loop otherwise serializes them all on its
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

    /// The newest request a load answered here; `retired` once the session moved on (a load
    /// arriving later must go to the session, whose answer may differ).
    private let latest = Locked<(request: ViewRequest?, retired: Bool)>((nil, false))

    init(state: ViewState, connectivity: Connectivity, reloadPolicy: ReloadPolicy, loadedAt: ContinuousClock.Instant) {
        self.state = state
        self.connectivity = connectivity
        self.reloadPolicy = reloadPolicy
        self.loadedAt = loadedAt
    }

    /// The state a load of `request` answers without running anything, as
    /// ``ViewSession/load(_:)`` would; `nil` when the session must decide (a connectivity
    /// change, a policy that asks for a run, or the session moved on).
    func answer(_ request: ViewRequest, now: ContinuousClock.Instant = .now) -> ViewState? {
        guard request.connectivity == connectivity else { return nil }
        switch reloadPolicy {
        case .always: return nil
        case .never: break
        case .maxAge(let maxAge): guard now - loadedAt < maxAge else { return nil }
        }
        let accepted = latest.withLock { latest -> Bool in
            guard !latest.retired else { return false }
            latest.request = request
            return true
        }
        return accepted ? state : nil
    }

    /// Ends this view: later loads go to the session. Returns the newest request a load answered
    /// here, for the session to adopt.
    func retire() -> ViewRequest? {
        latest.withLock { latest in
            latest.retired = true
            return latest.request
        }
    }
}
