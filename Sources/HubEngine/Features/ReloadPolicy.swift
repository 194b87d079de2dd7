/// Whether `GET /view?session=` re-runs the chain first (S105..S109).
public enum ReloadPolicy: Sendable, Equatable {
    /// Re-run on every load (the default).
    case always
    /// Never re-run; return the current view model.
    case never
    /// Re-run when the current view model is older than this.
    case maxAge(Duration)
}
