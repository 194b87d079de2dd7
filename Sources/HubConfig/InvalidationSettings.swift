import HubModel

/// `server.json` `invalidation`: the secrets `POST /invalidate` requests are signed with
/// (docs/SECURITY.md "Signed invalidations"). Without one the endpoint is off (404).
public struct InvalidationSettings: Sendable, Equatable {
    /// The shortest secret accepted, in UTF-8 bytes.
    public static let minimumSecretBytes = 32

    /// Every secret a signature may verify with (several during a rotation); each is used as
    /// its UTF-8 bytes. `HUB_INVALIDATION_SECRETS` (comma-separated) replaces them.
    public var secrets: [String] = []

    /// Whether `POST /invalidate` is served.
    public var isEnabled: Bool { !secrets.isEmpty }

    public init() {}

    /// Reads `invalidation`: `secrets`, a list of strings of at least 32 bytes each.
    package init(_ object: JSONObject, reader: ConfigReader) {
        let path = "$.invalidation"
        reader.checkKeys(object, at: path, known: ["secrets"])
        guard let secrets = reader.stringList(object, "secrets", at: path) else { return }
        for (index, secret) in secrets.enumerated() where secret.utf8.count < Self.minimumSecretBytes {
            reader.error("\(path).secrets[\(index)]", "must be at least \(Self.minimumSecretBytes) bytes (make one with openssl rand -hex 32)")
        }
        self.secrets = secrets
    }

    /// `HUB_INVALIDATION_SECRETS`: comma-separated secrets, over `invalidation.secrets`.
    package mutating func applyEnvironment(_ environment: [String: String], reader: ConfigReader) {
        guard let text = environment["HUB_INVALIDATION_SECRETS"], !text.isEmpty else { return }
        let secrets = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        for (index, secret) in secrets.enumerated() where secret.utf8.count < Self.minimumSecretBytes {
            reader.error(
                "HUB_INVALIDATION_SECRETS",
                "secret \(index + 1) is \(secret.utf8.count) bytes; each must be at least \(Self.minimumSecretBytes) (comma-separated)")
        }
        self.secrets = secrets
    }
}
