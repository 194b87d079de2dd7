import CryptoExtras
import Foundation
import HubEngine
import HubModel
import HubServer
import HubSync
import HubTestSupport
import JWTKit
import Testing

/// What the identity tests share: signing keys made in the test with jwt-kit (RSA through
/// CryptoExtras, P-256, Ed25519), tokens signed with them (any header, any payload: the tests
/// forge what they need), an identity provider that is a real ``TestUpstream`` serving the JWKS
/// and OpenID discovery, a content upstream that logs what reaches it, and the hub's config.

/// A signing key, its public JWK, and tokens signed with it.
struct SigningKey: Sendable {
    let kid: String
    /// The `alg` its tokens name.
    let alg: String
    /// The public JWK (what a JWKS lists).
    let publicJWK: [String: String]
    let signer: any JWTAlgorithm
    /// The public key as PEM (RSA only): the bytes an HS256 forgery signs with.
    let publicPEM: String?

    /// An RSA 2048-bit key (RS256).
    static func rsa(kid: String) async throws -> SigningKey {
        let key = try Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
        let (modulus, exponent) = try key.publicKey.getKeyPrimitives()
        let keys = JWTKeyCollection()
        await keys.add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        return SigningKey(
            kid: kid, alg: "RS256", publicJWK: ["kty": "RSA", "kid": kid, "use": "sig", "n": base64URL(modulus), "e": base64URL(exponent)],
            signer: try await keys.getKey(for: JWKIdentifier(string: kid)), publicPEM: key.publicKey.pemRepresentation)
    }

    /// A P-256 key (ES256).
    static func p256(kid: String) async throws -> SigningKey {
        let key = ES256PrivateKey()
        let parameters = try #require(key.parameters)
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: key, kid: JWKIdentifier(string: kid))
        return SigningKey(
            kid: kid, alg: "ES256", publicJWK: ["kty": "EC", "crv": "P-256", "kid": kid, "x": parameters.x, "y": parameters.y],
            signer: try await keys.getKey(for: JWKIdentifier(string: kid)), publicPEM: nil)
    }

    /// An Ed25519 key (EdDSA).
    static func ed25519(kid: String) async throws -> SigningKey {
        let key = try EdDSA.PrivateKey(curve: .ed25519)
        let keys = JWTKeyCollection()
        await keys.add(eddsa: key, kid: JWKIdentifier(string: kid))
        return SigningKey(
            kid: kid, alg: "EdDSA", publicJWK: ["kty": "OKP", "crv": "Ed25519", "kid": kid, "x": base64URL(key.publicKey.rawRepresentation)],
            signer: try await keys.getKey(for: JWKIdentifier(string: kid)), publicPEM: nil)
    }

    /// A token signed with this key: header `alg` and `kid` (then `header`'s members), `payload` as given.
    func token(_ payload: [String: Any], header extra: [String: Any] = [:]) throws -> String {
        var header: [String: Any] = ["alg": alg, "typ": "JWT", "kid": kid]
        header.merge(extra) { _, new in new }
        return try Self.sign(header: header, payload: payload, with: signer)
    }

    /// `base64url(header).base64url(payload).base64url(signature by signer)`.
    static func sign(header: [String: Any], payload: [String: Any], with signer: any JWTAlgorithm) throws -> String {
        let input = try encode(header) + "." + encode(payload)
        return input + "." + base64URL(Data(try signer.sign(Array(input.utf8))))
    }

    /// An HS256 token whose HMAC key is `secret` (the algorithm-confusion forgery: an RSA public key's PEM as the secret).
    static func hs256(_ payload: [String: Any], secret: String, kid: String) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
        let signer = try await keys.getKey(for: JWKIdentifier(string: kid))
        return try sign(header: ["alg": "HS256", "typ": "JWT", "kid": kid], payload: payload, with: signer)
    }

    /// A JSON object as base64url.
    static func encode(_ object: [String: Any]) throws -> String {
        base64URL(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }
}

/// Base64url without padding.
func base64URL(_ data: Data) -> String {
    data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}

/// An identity provider on a real loopback socket: answers each path with what the test set
/// (a JWKS, a discovery document, a 500), 404 elsewhere; every request in its log.
final class IdentityProvider: Sendable {
    private let answers = Locked<[String: (status: Int, body: [UInt8])]>([:])
    let upstream: TestUpstream
    /// The issuer its tokens name (`http://127.0.0.1:PORT/` + `tenant`).
    let issuer: String

    init(tenant: String = "") throws {
        let answers = self.answers
        upstream = try TestUpstream(handler: { (request: TestUpstream.Request) -> TestUpstream.Action in
            let answer = answers.withLock { $0[request.path] } ?? (status: 404, body: Array("{}".utf8))
            return .respond(status: answer.status, headers: [("Content-Type", "application/json")], body: answer.body)
        })
        issuer = upstream.url("/" + tenant)
    }

    deinit { upstream.stop() }

    /// Answers `path` with `body` and `status` from now on.
    func serve(_ path: String, _ body: [UInt8], status: Int = 200) {
        answers.withLock { $0[path] = (status, body) }
    }

    /// Publishes `keys` as the JWKS at `path`.
    func publish(_ keys: [SigningKey], at path: String = "/jwks") {
        let document = ["keys": keys.map(\.publicJWK)]
        serve(path, [UInt8](try! JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])))
    }

    /// Serves the OpenID discovery document of `issuer` (at `<issuer>/.well-known/openid-configuration`),
    /// naming `jwksPath` on this upstream.
    func serveDiscovery(jwksPath: String) {
        var base = Substring(URLComponents(string: issuer)!.path)
        while base.hasSuffix("/") { base = base.dropLast() }
        let document: [String: Any] = ["issuer": issuer, "jwks_uri": upstream.url(jwksPath)]
        serve(base + "/.well-known/openid-configuration", [UInt8](try! JSONSerialization.data(withJSONObject: document)))
    }

    /// How many requests reached `path`.
    func fetches(_ path: String) -> Int { upstream.log.count(path: path) }

    func url(_ path: String) -> String { upstream.url(path) }

    /// The claims of a token of this issuer for audience `hub`, valid from now for ten minutes.
    func claims(_ subject: String, _ extra: [String: Any] = [:]) -> [String: Any] {
        let now = Int(Date().timeIntervalSince1970)
        var values: [String: Any] = ["iss": issuer, "sub": subject, "aud": "hub", "iat": now, "exp": now + 600]
        values.merge(extra) { _, new in new }
        return values
    }

    /// `identity.jwt`'s entry for this provider.
    func providerJSON(jwks: String? = nil, refreshSeconds: Int = 86_400, leewaySeconds: Int = 60) -> String {
        #"{ "issuer": "\#(issuer)", "audiences": ["hub"], "jwks": "\#(jwks ?? url("/jwks"))", "jwksRefreshSeconds": \#(refreshSeconds), "leewaySeconds": \#(leewaySeconds) }"#
    }
}

/// A content upstream that logs every request: `/feed` answers one component titled with the
/// `user` query parameter and the `X-User-Id` it received (`q:<user>,h:<header>`), fresh for
/// five minutes; `/plain` a fixed component.
func contentUpstream() throws -> TestUpstream {
    try TestUpstream(handler: { (request: TestUpstream.Request) -> TestUpstream.Action in
        let user = request.queryValue("user") ?? "-"
        let header = request.header("X-User-Id") ?? "-"
        let body = #"{"body":[{"id":"feed","text":{"title":"q:\#(user),h:\#(header)"}}]}"#
        return .respond(
            status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "max-age=300")], body: Array(body.utf8))
    })
}

enum IdentityConfig {
    /// `server.json` with `identity` (its JSON members), per-client limits high unless given.
    static func server(identity: String, limits: String? = nil, trusted: String = "[]") -> String {
        let limits = limits ?? #"{ "sessionsPerClient": { "perSecond": 100000, "burst": 100000 }, "actionsPerClient": { "perSecond": 100000, "burst": 100000 } }"#
        return """
            { "host": "127.0.0.1", "port": 0, "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" },
              "limits": \(limits), "trustedProxies": \(trusted), "identity": { \(identity) } }
            """
    }

    /// A config of `server` with the standard features:
    /// - `public` (`hub:public`): a Swift operation showing who asks (`custom.who`: the subject or `anonymous`);
    /// - `protected` (`hub:protected`): the same, `"access": {"require": "user"}`;
    /// - `premium` (`hub:premium`): the same, for users whose `plan` is `premium` or `family`.
    /// Swift operations are not memoized: every view stores its session.
    static func config(server: String) -> TestConfig {
        var config = TestConfig(server: server)
        for (name, access) in [
            ("public", ""), ("protected", #", "access": { "require": "user" }"#),
            ("premium", #", "access": { "require": "user", "claims": { "plan": ["premium", "family"] } }"#),
        ] {
            config.feature(name, """
                { "id": "\(name)", "title": "\(name)", "match": { "root": "hub:\(name)" }\(access),
                  "operations": [ { "kind": "swift", "name": "whoami" } ] }
                """)
        }
        config["actions.json"] = #"{ "who": { "kind": "swift", "name": "who" } }"#
        return config
    }

    /// `whoami` and the `who:ping` action.
    static var extensions: SwiftExtensions {
        var extensions = SwiftExtensions()
        extensions.registerOperation("whoami") { _ in WhoAmI() }
        extensions.registerActionFactory("who", ClosureActionFactory(["ping": { _ in .performed }]))
        return extensions
    }
}

/// Shows the session's user (`custom.who`, and a body row): its subject, or `anonymous`.
struct WhoAmI: ContentOperationWithPaginatedContent {
    var name: String { "whoami" }
    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        let who = (try? context.user.subject) ?? "anonymous"
        builder.body.update("who") { $0.title = who }
        builder.setCustomDataValue(.string(who), forKey: "who")
    }
    func appendContent(forPage pageIndex: Int, builder: inout ViewModelBuilder, context: ContentContext) async throws {
        builder.body.update("page-\(pageIndex)") { $0.title = "page \(pageIndex)" }
    }
}

/// `Authorization: Bearer <token>`.
func bearer(_ token: String) -> [(String, String)] { [("Authorization", "Bearer " + token)] }

/// Asserts 401 `invalid_token` with `WWW-Authenticate: Bearer realm="hubserver", error="invalid_token"`.
func expectInvalidToken(_ response: LoopbackResponse, sourceLocation: SourceLocation = #_sourceLocation) throws {
    try expectProblem(response, 401, "invalid_token", sourceLocation: sourceLocation)
    #expect(
        response.header("WWW-Authenticate") == #"Bearer realm="hubserver", error="invalid_token""#, "\(response)",
        sourceLocation: sourceLocation)
}

/// Asserts 401 `authentication_required` with `WWW-Authenticate: Bearer realm="hubserver"`.
func expectAuthenticationRequired(_ response: LoopbackResponse, sourceLocation: SourceLocation = #_sourceLocation) throws {
    try expectProblem(response, 401, "authentication_required", sourceLocation: sourceLocation)
    #expect(response.header("WWW-Authenticate") == #"Bearer realm="hubserver""#, "\(response)", sourceLocation: sourceLocation)
}
