import HubEngine
import HubModel

/// One `Config/features/*.json` file, validated.
public struct FeatureDefinition: Sendable {
    public let identifier: String
    public let title: String
    /// Localized titles by language tag (`titles`).
    public let titles: [String: String]
    public let order: Int
    /// The file it came from, relative to the config directory.
    public let file: String
    public let predicate: ViewURIPredicate
    /// The feature's custom schema; `nil` for the default.
    public let schema: String?
    public let reloadPolicy: ReloadPolicy
    /// Actions the feature's handler vetoes (`actionHandler.veto`).
    public let vetoedActions: [ComponentIdentifier]
    public let operations: [OperationDefinition]
    /// Files besides ``file`` whose bytes make the feature's content, relative to the config
    /// directory (or absolute, for `file://` URLs): `static` files and fixed `file:` URLs. A
    /// reload re-runs the feature's sessions when one of them changed.
    let sources: [String]
    /// Reads files chosen by the request (a templated `file:` URL): a reload cannot tell whether
    /// they changed, so it always counts the feature as changed.
    let readsTemplatedFiles: Bool
}

/// `Config/toggles.json` entry: a value per request, by override, rollout or default.
public struct ToggleDefinition: Sendable {
    public enum Key: Sendable, Equatable {
        /// `header:NAME`: a request header's value.
        case header(String)
        /// `query:NAME`: a view URI query parameter.
        case query(String)
    }

    public let name: String
    public let values: [String]
    public let defaultValue: String
    /// Percentages per value, in declaration order; the rest of 100 gets the default.
    public let rollout: [(value: String, percent: Int)]
    /// What identifies a client for the rollout; without it (or when the request lacks it)
    /// the default applies.
    public let key: Key?
}

/// `Config/actions.json` entry.
public enum ActionDefinition: Sendable {
    /// POSTs the action context as JSON; 2xx performed, 4xx not performed, 5xx/timeout an error.
    case remote(url: URLTemplate, timeoutMs: Int?, headers: [(name: String, value: String)])
    /// An action factory registered by name by the embedding app.
    case swift(name: String)
}
