import HubMetrics
import HubEngine
import HubHTTP
import HubModel

/// The server's version string.
public enum HubServerVersion {
    public static let current = "0.1.0"
}
