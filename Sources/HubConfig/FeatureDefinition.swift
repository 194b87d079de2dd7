import HubEngine
import HubModel
import HubOperations

/// One `Config/features/*.json` file, validated.
package struct FeatureDefinition: Sendable {
    package let identifier: String
    package let title: String
    /// Localized titles by language tag (`titles`).
    package let titles: [String: String]
    package let order: Int
    /// The file it came from, relative to the config directory.
    package let file: String
    package let predicate: ViewURIPredicate
    /// The feature's custom schema; `nil` for the default.
    package let schema: String?
    package let reloadPolicy: ReloadPolicy
    /// Actions the feature's handler vetoes (`actionHandler.veto`).
    package let vetoedActions: [ComponentIdentifier]
    package let operations: [OperationDefinition]
    /// Files besides ``file`` whose bytes make the feature's content, relative to the config
    /// directory (or absolute, for `file://` URLs): `static` files and fixed `file:` URLs. A
    /// reload re-runs the feature's sessions when one of them changed.
    package let sources: [String]
    /// Directories whose files a templated `file:` URL may read (chosen by the request), relative
    /// to the config directory (or absolute): a reload counts the feature as changed when a file
    /// under one of them changed (``ConfigLoader`` digests them; ``DirectoryDigest``).
    package let templatedDirectories: [String]
    /// Who may open its views (`"access"`); `nil`: anyone.
    package var access: AccessRule? = nil

    /// Whether its chain reads the user from config: a remote URL with `{user...}`, or
    /// `forwardIdentity` (a Swift operation's `context.user` is found when it runs).
    package var readsUser: Bool { Self.readsUser(operations) }

    private static func readsUser(_ operations: [OperationDefinition]) -> Bool {
        operations.contains { operation in
            switch operation.kind {
            case .remote(let remote): return remote.url.usesUser || remote.forwardIdentity != nil
            case .variant(_, let variants): return variants.values.contains { readsUser($0) }
            default: return false
            }
        }
    }
}

/// `Config/toggles.json` entry: a value per request, by override, rollout or default.
package struct ToggleDefinition: Sendable {
    package enum Key: Sendable, Equatable {
        /// `header:NAME`: a request header's value.
        case header(String)
        /// `query:NAME`: a view URI query parameter.
        case query(String)
    }

    package let name: String
    package let values: [String]
    package let defaultValue: String
    /// Percentages per value, in declaration order; the rest of 100 gets the default.
    package let rollout: [(value: String, percent: Int)]
    /// What identifies a client for the rollout; without it (or when the request lacks it)
    /// the default applies.
    package let key: Key?
}

/// `Config/actions.json` entry.
package enum ActionDefinition: Sendable {
    /// POSTs the action context as JSON; 2xx performed, 4xx not performed, 5xx/timeout an error.
    /// `forwardHeaders`: caller request headers sent on (``ForwardedHeaders``).
    /// `forwardIdentity`: the header that carries the verified user's subject (``RemoteOperationDefinition/forwardIdentity``).
    case remote(
        url: URLTemplate, timeoutMs: Int?, headers: [(name: String, value: String)], forwardHeaders: [String],
        forwardIdentity: String?)
    /// An action factory registered by name by the embedding app.
    case swift(name: String)
}
