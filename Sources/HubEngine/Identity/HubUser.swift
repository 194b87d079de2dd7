/// The verified user a request comes from: who an identity provider says signed in (a JWT's
/// `sub`, verified by the server), or who a trusted gateway said it is. The engine never
/// verifies anything itself; it carries the user the server verified into sessions (a token
/// opened by a user is bound to them), state (``StateScope/user``), memoization and limits.
public struct HubUser: Sendable, Hashable {
    /// The subject: the identity provider's stable id of the user (`sub`).
    public let subject: String
    /// The claims the config names in `identity.claims` (strings, numbers and booleans as their
    /// JSON text): what Swift code and `{user.claim.NAME}` placeholders may read.
    public let claims: [String: String]
    /// Every claim of the credential, each as the texts it holds (an array claim: each member's
    /// text): what a feature's access rule (``AccessRule``) checks. Not shown to operations.
    public let accessClaims: [String: [String]]
    /// A keyed digest of the subject (hex), the same for every request of the user while the
    /// server's key is: what logs, limits and caches key on, never the subject itself.
    public let digest: String
    /// A digest of the subject (hex, unkeyed, so it outlives key rotation): the user's part of
    /// a ``StateScope/user`` key (`user/<stateName>/<name>`).
    public let stateName: String

    public init(
        subject: String, claims: [String: String] = [:], accessClaims: [String: [String]] = [:], digest: String,
        stateName: String
    ) {
        self.subject = subject
        self.claims = claims
        self.accessClaims = accessClaims
        self.digest = digest
        self.stateName = stateName
    }

    /// The value of a claim named in `identity.claims`; `nil` when the credential has none.
    public func claim(_ name: String) -> String? { claims[name] }

    /// What reading the user of an anonymous request throws.
    static let required = EngineError(
        .authenticationRequired, "this view needs a signed-in user: send 'Authorization: Bearer <token>'")

    public static func == (lhs: HubUser, rhs: HubUser) -> Bool { lhs.digest == rhs.digest }
    public func hash(into hasher: inout Hasher) { hasher.combine(digest) }
}
