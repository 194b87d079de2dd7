import HubModel
import HubSync

/// The session a run's contexts perform actions in (S129, ``ContentContext/actions``): held
/// strongly while the run lasts, then let go. A context that outlived its run (an operation
/// kept it, or a timed-out operation still runs) reaches the session through a weak reference
/// made at the end of that run, and performs nothing once the session is gone.
///
/// Why not a weak reference from the start: the first weak reference to an object gives it a
/// side table for good, and every later retain and release of it goes through that table on
/// the runtime's slow path. Every session that ran an operation had one, and a held request
/// retains its session several times. Made this way, only a session whose context outlived a
/// run gets one. Why not a strong one for good: an operation instance belongs to its session,
/// and one that keeps its context would keep its session alive for ever.
final class ActionTarget: Sendable {
    private enum Link: Sendable {
        /// The run is going on: its session, held as the run holds it.
        case running(ViewSession)
        /// The run is over and a context outlived it.
        case outlived(WeakSession)
        /// The run is over and none of its contexts is left, or the session is gone.
        case ended
    }

    private struct WeakSession: Sendable {
        weak var session: ViewSession?
    }

    private let link: Locked<Link>

    init(_ session: ViewSession) {
        link = Locked(.running(session))
    }

    /// The performer a context of this run carries.
    var performer: ActionPerformer { ActionPerformer(self) }

    /// Performs `identifier` in the session; false once the session is gone.
    func perform(_ identifier: ComponentIdentifier, customData: JSONObject?) async -> Bool {
        guard let session else { return false }
        return await session.performActionFromOperation(identifier, customData: customData)
    }

    /// The session, while it lives and is reachable.
    private var session: ViewSession? {
        link.withLock { link in
            switch link {
            case .running(let session): session
            case .outlived(let weak): weak.session
            case .ended: nil
            }
        }
    }

    /// Ends the run of `target`: the session is let go, and reached weakly only if some context
    /// still holds the target (`target` is then not the only reference to it).
    static func endRun(_ target: inout ActionTarget) {
        let outlived = !isKnownUniquelyReferenced(&target)
        target.link.withLock { link in
            guard case .running(let session) = link else { return }
            link = outlived ? .outlived(WeakSession(session: session)) : .ended
        }
    }
}
