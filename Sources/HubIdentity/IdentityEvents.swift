/// Hooks through which ``TokenVerifier`` reports what it does (metrics and logs); every hook
/// does nothing by default. They are called from any task: keep them quick and thread-safe.
public struct IdentityEvents: Sendable {
    /// After each verification: `"ok"` or a ``VerificationFailure`` raw value.
    public var verified: @Sendable (String) -> Void
    /// After each token accepted again under its lease, without a signature check
    /// (``TokenVerifier/recheck(_:)``; also reported to ``verified`` as `"ok"`).
    public var reused: @Sendable () -> Void
    /// After each load of a provider's keys (the first, periodic or on demand): whether it succeeded.
    public var refreshed: @Sendable (Bool) -> Void
    /// One line for the server's log: a failed refresh (once per failure), a recovery.
    public var log: @Sendable (String) -> Void

    /// Creates hooks; each defaults to doing nothing.
    public init(
        verified: @escaping @Sendable (String) -> Void = { _ in },
        reused: @escaping @Sendable () -> Void = {},
        refreshed: @escaping @Sendable (Bool) -> Void = { _ in },
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.verified = verified
        self.reused = reused
        self.refreshed = refreshed
        self.log = log
    }
}
