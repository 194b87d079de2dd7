import HubEngine
import HubHTTP
import HubModel
import HubOperations
import HubSync

/// The last request each thread found to be the same client request as a baseline
/// (``RequestBridge/isSameClientRequest(viewURI:from:user:components:as:answerAlike:)``), kept by
/// its field lines: a client polling a held session, or opening a view the memo answers, sends
/// the same fields every time, and the next such request is recognized by comparing its lines
/// with the copy, one comparison of bytes per line, instead of the pass over its fields.
///
/// The answer is a function of the request's fields but its trace context (never kept, never
/// compared: ``RetainedHeaders``), and of the other inputs kept beside the lines: the view URI,
/// the user, the client's components, whether buckets may differ, and the baseline itself, kept
/// as the very value (``ViewRequest/isCopy(of:)``, so a baseline made later cannot take its place).
/// Only yes is kept. Per thread (``Striped``): one entry per stripe, its buffer reused, so what
/// is kept stays small whatever clients send. A thread whose requests keep differing (many apps
/// asking in turn, each with its own client id) stops comparing and copying after
/// ``missesBeforeBackingOff`` of them, and tries again on one request in ``retryEvery``: it then
/// costs a lock and a count per request. One per ``RequestBridge``: a config reload starts a new one.
final class SameClientMemo: Sendable {
    /// The lines of the last request found alike, and what else the answer depended on.
    private struct Entry: Sendable {
        var lines = ReceivedLines(ignoring: [TraceContext.parentHeader, TraceContext.stateHeader])
        var viewURI = ""
        var user: HubUser?
        var components: Set<ComponentIdentifier>?
        var baseline: ViewRequest?
        var answerAlike = false
        /// Requests asked about since the last one answered from the lines.
        var misses: UInt32 = 0
    }

    /// Requests in a row not answered from the lines before a thread backs off (8).
    let missesBeforeBackingOff: UInt32
    /// While backing off, one request in this many is compared (and kept when found alike) (16).
    let retryEvery: UInt32

    private let stripes = Striped { Entry() }

    init(missesBeforeBackingOff: UInt32 = 8, retryEvery: UInt32 = 16) {
        precondition(retryEvery > 0)
        self.missesBeforeBackingOff = missesBeforeBackingOff
        self.retryEvery = retryEvery
    }

    /// Every request compared and every alike one kept, never backing off (for tests that want
    /// every repeat answered from the lines).
    static var neverBackingOff: SameClientMemo { SameClientMemo(missesBeforeBackingOff: .max, retryEvery: 1) }

    /// What the calling thread's memo says of a request.
    enum Answer {
        /// The same client request as the baseline: the last found alike came with its lines.
        case alike
        /// Unknown: the request must be compared; `keep`: whether to remember it when found alike
        /// (``remember(_:viewURI:user:components:baseline:answerAlike:)``; not while the thread
        /// backs off).
        case unknown(keep: Bool)
    }

    /// ``Answer/alike`` when the calling thread last found a request with `headers`' lines (the
    /// trace context aside) the same client request as `baseline`, with the same other inputs.
    func answer(
        _ headers: HTTPHeaders, viewURI: String, user: HubUser?, components: ClientComponents?, baseline: ViewRequest,
        answerAlike: Bool
    ) -> Answer {
        stripes.current.withLock { entry in
            let misses = entry.misses
            entry.misses = misses &+ 1
            guard misses < missesBeforeBackingOff || misses % retryEvery == 0 else { return .unknown(keep: false) }
            guard let kept = entry.baseline, kept.isCopy(of: baseline), entry.answerAlike == answerAlike,
                entry.viewURI == viewURI, entry.user == user, entry.components == components?.identifiers,
                entry.lines.matches(headers)
            else { return .unknown(keep: true) }
            entry.misses = 0
            return .alike
        }
    }

    /// Keeps `headers`' lines as the calling thread's last found the same client request as
    /// `baseline` (nothing when they are not as a parser received them).
    func remember(
        _ headers: HTTPHeaders, viewURI: String, user: HubUser?, components: ClientComponents?, baseline: ViewRequest,
        answerAlike: Bool
    ) {
        stripes.current.withLock { entry in
            guard entry.lines.copy(from: headers) else {
                entry.baseline = nil
                return
            }
            entry.viewURI = viewURI
            entry.user = user
            entry.components = components?.identifiers
            entry.baseline = baseline
            entry.answerAlike = answerAlike
        }
    }
}
