/// Why a session ended (``ViewSession/endReason``).
public enum SessionEndReason: String, Sendable {
    /// Deleted, evicted or expired: its token rebuilds it where it is still served.
    case closed
    /// A config reload removed the feature that served its view URI.
    case featureRemoved = "feature_removed"
}
