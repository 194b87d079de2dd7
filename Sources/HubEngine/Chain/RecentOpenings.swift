import HubModel
import HubSync
import Synchronization

/// The chain memo's recent answers to ``ViewEngine/openView(for:)`` (`GET /view?uri=`), by client
/// request: an open with the same client request (``ViewRequest/sameClientRequest(as:)``) as one
/// the memo answered is answered again from here, without matching the feature, making its
/// operations, building the memo key and looking it up. The HTTP layer also recognizes a
/// request whose memo answer is known to be the same though a field differs (another app in the
/// same rollout buckets: ``ViewEngine/openView(viewURI:fingerprint:sameClient:request:)``).
///
/// Only while the answer is the one the memo would give: the definitions are those it was found
/// under (their generation), every operation said how long its key lasts
/// (``ContentOperation/memoizationKeyLifetime(context:)``; the `whileValid` checks pass at
/// each use), and the key did not depend on the session identifier (each open names a new
/// session). A chain that does not qualify is remembered as such, so its opens only look here.
///
/// Each thread keeps its own few (``capacity``): the event loops serve opens without sharing a
/// lock, and the view models kept alive beyond the memo's are bounded.
final class RecentOpenings: Sendable {
    /// What an open of one client request gets.
    enum Outcome: Sendable {
        /// The memo's answer, reported as a memo hit.
        case answer(Answer)
        /// The chain's answer cannot be reused (run the open as usual).
        case prepare
    }

    /// The memo's answer to one client request and who asked for it (the user and locale of
    /// that request, which the same client request has too). A class: an open that recalls it
    /// takes one reference, where copying its fields took one per field through the runtime's
    /// generic tuple copy.
    final class Answer: Sendable {
        let featureIdentifier: String
        let viewModel: ViewModel
        let timings: [OperationTiming]
        let user: HubUser?
        let locale: String?

        init(featureIdentifier: String, viewModel: ViewModel, timings: [OperationTiming], user: HubUser?, locale: String?) {
            self.featureIdentifier = featureIdentifier
            self.viewModel = viewModel
            self.timings = timings
            self.user = user
            self.locale = locale
        }
    }

    private struct Entry: Sendable {
        let request: ViewRequest
        /// The request's kept fields, summed up: compared before the request when the thread
        /// remembers more than one client request of the URI.
        let fingerprint: KeptFieldsFingerprint
        let generation: Int
        let outcome: Outcome
        /// What keeps the answer's memo key valid (nil for ``Outcome/prepare``, which holds until
        /// the definitions change).
        let checks: MemoKeyChecks?
    }

    /// Client requests each thread remembers; the oldest makes room. Room for a few views times
    /// the rollout buckets their apps fall in (many apps of one bucket share an entry over HTTP).
    static let capacity = 8
    private let stripes = Striped<[Entry]> { [] }

    /// What was remembered for `request` under definitions `generation`; `nil` when nothing is
    /// (or it no longer holds).
    func outcome(for request: ViewRequest, generation: Int) -> Outcome? {
        outcome(viewURI: request.viewURI, generation: generation, fingerprint: { KeptFieldsFingerprint(of: request) }) {
            $0.sameClientRequest(as: request)
        }
    }

    /// What was remembered for the client request of `viewURI` that `sameClient` recognizes;
    /// `nil` when nothing is (or it no longer holds). `sameClient` is called under the stripe's
    /// lock with each candidate's request. When the thread remembers more than one request of
    /// `viewURI`, `fingerprint` (the request's, asked at most once; nil when unknown) rules out those whose
    /// fingerprint differs without asking `sameClient`: many clients asking for one view in turn
    /// cost one fingerprint, not one comparison per remembered client.
    func outcome(
        viewURI: String, generation: Int, fingerprint: () -> KeptFieldsFingerprint?, matching sameClient: (ViewRequest) -> Bool
    ) -> Outcome? {
        // Read in place: only the outcome is copied out (an open runs this every time).
        stripes.current.withLock { entries in
            var candidates = 0
            for index in entries.indices where entries[index].request.viewURI == viewURI { candidates += 1 }
            // Asked once, and only when there is more than one candidate.
            var asked = false
            var known: KeptFieldsFingerprint?
            for index in entries.indices where entries[index].request.viewURI == viewURI {
                if candidates > 1 {
                    if !asked { (asked, known) = (true, fingerprint()) }
                    if let known, entries[index].fingerprint != known { continue }
                }
                guard sameClient(entries[index].request) else { continue }
                guard entries[index].generation == generation, entries[index].checks?.pass ?? true else {
                    entries.remove(at: index)
                    return nil
                }
                return entries[index].outcome
            }
            return nil
        }
    }

    /// Remembers `outcome` for `request`, valid under `generation` while `checks` pass. Asked
    /// after ``outcome(for:generation:)`` found nothing for it (or dropped what no longer
    /// held), so the thread's entries hold no other for the same client request; another thread
    /// sharing the stripe may have added one meanwhile, which the lookup finds first, and the
    /// oldest goes first.
    /// `fingerprint`: the caller's for `request` (``outcome(viewURI:generation:fingerprint:matching:)``),
    /// else the fields' own.
    func remember(
        _ outcome: Outcome, for request: ViewRequest, generation: Int, checks: MemoKeyChecks? = nil,
        fingerprint: KeptFieldsFingerprint? = nil
    ) {
        let entry = Entry(
            request: request, fingerprint: fingerprint ?? KeptFieldsFingerprint(of: request), generation: generation,
            outcome: outcome, checks: checks)
        stripes.current.withLock { entries in
            if entries.count >= Self.capacity { entries.removeFirst() }
            entries.append(entry)
        }
    }
}

/// Notes whether an operation read ``ContentContext/sessionID`` while making its memo key: a key
/// that did not holds for every session (``RecentOpenings``).
final class SessionIDReads: Sendable {
    private let read = Atomic<Bool>(false)
    private let userRead = Atomic<Bool>(false)

    var happened: Bool { read.load(ordering: .relaxed) }
    /// Whether a key read ``ContentContext/user``.
    var userHappened: Bool { userRead.load(ordering: .relaxed) }

    func note() { read.store(true, ordering: .relaxed) }
    func noteUser() { userRead.store(true, ordering: .relaxed) }
}
