import HubIdentity
import HubModel

/// `server.json` `"identity"`: who the user is (docs/SECURITY.md). Bearer JWTs verified against
/// each provider's JWKS, or a header a trusted gateway sets; neither: every request is anonymous.
///
/// ```json
/// "identity": {
///   "jwt": { "issuer": "https://id.example.com/", "audiences": ["hubserver"],
///            "jwks": "https://id.example.com/.well-known/jwks.json",
///            "algorithms": ["RS256", "ES256", "EdDSA"], "leewaySeconds": 60, "jwksRefreshSeconds": 300 },
///   "header": { "name": "X-User-Id" },
///   "claims": ["plan"]
/// }
/// ```
public struct IdentitySettings: Sendable, Equatable {
    /// One identity provider (`identity.jwt`, or one entry of a list of them).
    public struct Provider: Sendable, Equatable {
        /// The exact `iss` of its tokens (a token's `iss` picks its provider).
        public var issuer: String
        /// A token's `aud` must contain one of these.
        public var audiences: [String]
        /// Where its keys come from, as written: an `http(s)` URL, `file:<path>` (relative to the
        /// config directory), `"discover"` (OpenID Connect discovery from the issuer) or `"dev"`
        /// (the development issuer: a key made in the data directory, ``isDevelopment``).
        public var jwks: String
        /// The JWS algorithms accepted (never `none`, never an HMAC algorithm).
        public var algorithms: [String] = IdentitySettings.defaultAlgorithms
        /// Clock skew allowed for `exp`, `nbf` and `iat`.
        public var leewaySeconds = 60
        /// How often its keys are fetched again.
        public var refreshSeconds = 300

        /// Whether it is the development issuer (`"jwks": "dev"`).
        public var isDevelopment: Bool { jwks == IdentitySettings.developmentKeys }
    }

    /// The providers whose bearer tokens are verified; empty: no bearer tokens accepted.
    public var providers: [Provider] = []
    /// The header a trusted gateway names the verified user in (believed only from a peer in
    /// `trustedProxies`); `nil`: none.
    public var headerName: String?
    /// The claims operations may read (``HubEngine/HubUser/claims``, `{user.claim.NAME}`).
    public var claims: [String] = []

    public init() {}

    /// Whether any way of naming a user is configured.
    public var isEnabled: Bool { !providers.isEmpty || headerName != nil }

    /// The development issuer's provider, when it is the one configured.
    public var developmentProvider: Provider? { providers.first(where: \.isDevelopment) }

    /// `"jwks": "dev"`.
    public static let developmentKeys = DevelopmentIssuer.keysKeyword
    /// `algorithms` when not given.
    public static let defaultAlgorithms = JWTProviderSettings.defaultAlgorithms
    /// Every algorithm `algorithms` may list: asymmetric JWS algorithms only.
    public static let allowedAlgorithms = JWTProviderSettings.allowedAlgorithms

    /// Reads `"identity"`; problems are reported on `reader`.
    package init(_ object: JSONObject, reader: ConfigReader) {
        let path = "$.identity"
        reader.checkKeys(object, at: path, known: ["jwt", "header", "claims"])
        switch object["jwt"] {
        case nil: break
        case .array(let list)?:
            for (index, entry) in list.enumerated() {
                if let provider = Self.provider(entry, reader: reader, at: "\(path).jwt[\(index)]") { providers.append(provider) }
            }
            if list.isEmpty { reader.error("\(path).jwt", "must name at least one provider") }
        case let value?:
            if let provider = Self.provider(value, reader: reader, at: "\(path).jwt") { providers.append(provider) }
        }
        var seen = Set<String>()
        for provider in providers where !seen.insert(provider.issuer).inserted {
            reader.error("\(path).jwt", "issuer '\(provider.issuer)' is listed twice: a token's iss must pick one provider")
        }
        if providers.count > 1, providers.contains(where: \.isDevelopment) {
            reader.error("\(path).jwt", "the development issuer (\"jwks\": \"dev\") cannot be listed beside another provider")
        }
        if let header = reader.object(object["header"], at: "\(path).header") {
            reader.checkKeys(header, at: "\(path).header", known: ["name"])
            if let name = reader.string(header, "name", at: "\(path).header", required: true) {
                if Self.isFieldName(name) { headerName = name } else {
                    reader.error("\(path).header.name", "'\(name)' is not an HTTP field name")
                }
            }
        }
        if let names = reader.stringList(object, "claims", at: path) { claims = names }
    }

    /// RFC 9110 token characters (a field name).
    package static func isFieldName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    private static func provider(_ value: JSONValue, reader: ConfigReader, at path: String) -> Provider? {
        guard let object = reader.object(value, at: path) else { return nil }
        reader.checkKeys(
            object, at: path, known: ["issuer", "audiences", "jwks", "algorithms", "leewaySeconds", "jwksRefreshSeconds"])
        guard let issuer = reader.string(object, "issuer", at: path, required: true),
            let jwks = reader.string(object, "jwks", at: path, required: true)
        else { return nil }
        guard let audiences = reader.stringList(object, "audiences", at: path), !audiences.isEmpty else {
            reader.error("\(path).audiences", "is required: the aud values this server accepts, such as [\"hubserver\"]")
            return nil
        }
        guard jwks == developmentKeys || jwks == "discover" || jwks.hasPrefix("file:") || jwks.hasPrefix("https://")
            || jwks.hasPrefix("http://")
        else {
            reader.error("\(path).jwks", "must be an http(s) URL, file:<path>, \"discover\" or \"dev\"")
            return nil
        }
        var provider = Provider(issuer: issuer, audiences: audiences, jwks: jwks)
        if let algorithms = reader.stringList(object, "algorithms", at: path) {
            let refused = algorithms.filter { !allowedAlgorithms.contains($0) }
            if !refused.isEmpty || algorithms.isEmpty {
                reader.error(
                    "\(path).algorithms",
                    "'\(refused.joined(separator: ", "))' not accepted: list one or more of \(allowedAlgorithms.joined(separator: ", ")) (never none or an HMAC algorithm)")
                return nil
            }
            provider.algorithms = algorithms
        }
        if let value = reader.int(object, "leewaySeconds", at: path, range: JWTProviderSettings.leewayRange) { provider.leewaySeconds = value }
        if let value = reader.int(object, "jwksRefreshSeconds", at: path, range: JWTProviderSettings.refreshRange) { provider.refreshSeconds = value }
        return provider
    }
}
