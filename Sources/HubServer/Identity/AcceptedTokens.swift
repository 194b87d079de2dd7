import HubEngine
import HubIdentity
import HubSync

/// Bearer tokens this server verified lately, each with its user and its
/// ``VerificationLease``: a client presents the same token on every request until it expires,
/// and checking it in full (a JWT parse, an RSA, ECDSA or Ed25519 verification and the user's
/// digests) costs many times a whole anonymous request for a held view (docs/PERFORMANCE.md
/// "A user on every request"). A token found here is
/// answered from its lease while the provider has not loaded keys since
/// (``TokenVerifier/recheck(_:)``): accepted while its times hold, refused once its `exp` has
/// passed (a client that goes on sending an old token costs no signature check either);
/// otherwise it is verified as any other.
///
/// Keyed by the token's exact bytes (``ExactText``): a token that differs by one byte is another token.
/// Only tokens that verified are kept. Each thread (each event loop) keeps its own, at most
/// ``capacityPerThread`` tokens of at most ``maximumTokenBytes`` bytes (a full table starts over),
/// so the two loops never wait for each other here.
final class AcceptedTokens: Sendable {
    /// Tokens each thread keeps.
    static let capacityPerThread = 1024
    /// Longest token kept (a longer one is verified every time; the verifier takes up to 8 KiB).
    static let maximumTokenBytes = 2048

    struct Entry: Sendable {
        let user: HubUser
        let lease: VerificationLease
    }

    private let entries = RecentHits<ExactText, Entry>(capacity: capacityPerThread)

    /// What `token` gets from its lease when it was verified lately and the provider's keys
    /// are unchanged: its user, or why it is refused now (its times); counted by the verifier as
    /// a verification. `nil`: verify it.
    func answer(for token: Substring, verifier: TokenVerifier) -> Result<HubUser, VerificationFailure>? {
        guard token.utf8.count <= Self.maximumTokenBytes, let entry = entries.value(for: ExactText(token)),
            let answer = verifier.recheck(entry.lease)
        else { return nil }
        return answer.map { entry.user }
    }

    /// Where a token looked up on the calling thread is kept once verified: that thread's table
    /// (the verification's task may end on another thread).
    typealias Place = RecentHits<ExactText, Entry>.StripeReference

    /// The calling thread's ``Place``.
    var currentPlace: Place { entries.currentStripe }

    /// Keeps `user`, verified from `token` under `lease`, in `place`.
    func remember(_ user: HubUser, lease: VerificationLease, for token: Substring, in place: Place) {
        guard token.utf8.count <= Self.maximumTokenBytes else { return }
        place.remember(Entry(user: user, lease: lease), for: ExactText(token))
    }
}
