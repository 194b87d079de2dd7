/// One identity provider whose tokens ``TokenVerifier`` accepts: its issuer, the audiences a
/// token must name, where its public keys come from, and the algorithms it may sign with.
public struct JWTProviderSettings: Sendable, Equatable {
    /// Where a provider's JSON Web Key Set comes from.
    public enum KeySource: Sendable, Equatable {
        /// An `http` or `https` JWKS URL, fetched with a GET at every refresh.
        case url(String)
        /// The absolute path of a JWKS JSON file, read at every refresh (the server resolves a
        /// config's `file:` relative to the config directory).
        case file(String)
        /// OpenID Connect discovery: `GET <issuer without a trailing "/">/.well-known/openid-configuration`,
        /// then its `jwks_uri`; both are read again at every refresh.
        case discover
        /// The development issuer: an Ed25519 key generated on first use and kept in
        /// `directory` (see ``DevelopmentIssuer``). No endpoint; for local development only.
        case development(directory: String)
    }

    /// Every algorithm a provider may list: RSA PKCS#1 v1.5, RSA-PSS, ECDSA and EdDSA. Never
    /// `none` and never an HMAC algorithm: the verifier holds public keys only.
    public static let allowedAlgorithms: [String] = [
        "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA",
    ]
    /// The algorithms a provider accepts unless it lists its own.
    public static let defaultAlgorithms: [String] = ["RS256", "ES256", "EdDSA"]
    /// The accepted range of ``leewaySeconds``.
    public static let leewayRange: ClosedRange<Int> = 0...300
    /// The accepted range of ``refreshSeconds``.
    public static let refreshRange: ClosedRange<Int> = 10...86_400

    /// The exact `iss` value of this provider's tokens; a token's `iss` picks its provider.
    public var issuer: String
    /// A token's `aud` (a string or an array) must contain at least one of these.
    public var audiences: [String]
    /// Where the public keys come from.
    public var keys: KeySource
    /// The `alg` values accepted, a subset of ``allowedAlgorithms``; any other, `none` and every
    /// HMAC algorithm fail with ``VerificationFailure/algorithm``.
    public var algorithms: [String]
    /// Clock skew allowed on `exp`, `nbf` and `iat`, in seconds (0...300; 60 by default).
    public var leewaySeconds: Int
    /// Seconds between background refreshes of the keys (10...86 400; 300 by default).
    public var refreshSeconds: Int

    /// Creates settings; the caller (the config loader) checks the ranges and the algorithm names
    /// (``validationProblem``).
    public init(
        issuer: String,
        audiences: [String],
        keys: KeySource,
        algorithms: [String] = JWTProviderSettings.defaultAlgorithms,
        leewaySeconds: Int = 60,
        refreshSeconds: Int = 300
    ) {
        self.issuer = issuer
        self.audiences = audiences
        self.keys = keys
        self.algorithms = algorithms
        self.leewaySeconds = leewaySeconds
        self.refreshSeconds = refreshSeconds
    }

    /// The first thing wrong with these settings, or nil: an empty issuer or audience list, an
    /// algorithm outside ``allowedAlgorithms`` (or none at all), a leeway or refresh interval out
    /// of range. ``TokenVerifier`` clamps the numbers and drops unknown algorithms regardless.
    public var validationProblem: String? {
        if issuer.isEmpty { return "issuer is empty" }
        if audiences.isEmpty || audiences.contains(where: \.isEmpty) { return "audiences must be non-empty strings" }
        if algorithms.isEmpty { return "algorithms is empty" }
        if let unknown = algorithms.first(where: { !Self.allowedAlgorithms.contains($0) }) {
            return "algorithm \(unknown) is not one of \(Self.allowedAlgorithms.joined(separator: ", "))"
        }
        if !Self.leewayRange.contains(leewaySeconds) { return "leewaySeconds must be within 0...300" }
        if !Self.refreshRange.contains(refreshSeconds) { return "refreshSeconds must be within 10...86400" }
        return nil
    }
}
