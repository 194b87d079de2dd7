extension SessionStore {
    /// Counts since start, for metrics.
    public struct Statistics: Sendable, Equatable {
        public var active: Int = 0
        public var created: Int = 0
        public var evicted: Int = 0
        public var expired: Int = 0
        public var ended: Int = 0
        /// Sessions taken out because their first load produced no view model.
        public var failed: Int = 0
        /// Sessions rebuilt from a token after this process evicted them.
        public var rebuiltEvicted: Int = 0
        /// Sessions rebuilt from a token after they expired here.
        public var rebuiltExpired: Int = 0
        /// Sessions rebuilt from a token this process never held (a restart, another replica).
        public var rebuiltUnknown: Int = 0
        /// Used sessions (protected from eviction by sessions opened and never used again).
        public var protected: Int = 0
        /// What the live sessions hold, as they estimate it (``ViewSession/retainedBytes``).
        public var bytes: Int = 0

        public init() {}

        mutating func add(_ other: Statistics) {
            active += other.active
            created += other.created
            evicted += other.evicted
            expired += other.expired
            ended += other.ended
            failed += other.failed
            rebuiltEvicted += other.rebuiltEvicted
            rebuiltExpired += other.rebuiltExpired
            rebuiltUnknown += other.rebuiltUnknown
            protected += other.protected
            bytes += other.bytes
        }
    }

    /// Why this process no longer holds a session it held.
    public enum RemovalReason: String, Sendable {
        case evicted, expired, deleted
    }

    /// Why a session was rebuilt from its token (`hub_sessions_rebuilt_total{reason}`).
    public enum RebuildReason: String, Sendable, CaseIterable {
        case evicted, expired, unknown
    }
}
