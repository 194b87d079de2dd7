import Foundation

/// The state of one provider's keys, for `/ready` and diagnostics (``TokenVerifier/status()``).
public struct ProviderStatus: Sendable, Equatable {
    /// The provider's issuer.
    public let issuer: String
    /// How many usable keys (distinct `kid`s) the verifier holds for it.
    public let keys: Int
    /// When its keys were last loaded successfully, or nil if they never were.
    public let refreshedAt: Date?
    /// Why the last load failed, or nil when the last load succeeded (or none ran yet).
    public let error: String?

    /// Creates a status.
    public init(issuer: String, keys: Int, refreshedAt: Date?, error: String?) {
        self.issuer = issuer
        self.keys = keys
        self.refreshedAt = refreshedAt
        self.error = error
    }
}
