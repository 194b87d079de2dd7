/// Whether a request may add a session to the store (a new session, a rebuild from a token, a
/// lazy token's first use): the caller's per-client limit. Asked only when a session is about
/// to be stored, never for a held session or a memoized view that stores nothing.
public enum SessionAdmission: Sendable, Equatable {
    case admit
    /// Refused: the engine throws ``EngineError/Code/sessionRefused`` with this delay.
    case refuse(retryAfterSeconds: Int)

    /// A check that admits everything (tests, in-process callers without limits).
    public static let always: @Sendable () -> SessionAdmission = { .admit }
}
