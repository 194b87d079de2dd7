import HubCrypto
import HubEngine
import HubHTTP
import HubIdentity
import HubPrimitives
import HubSync

/// Who a request comes from (docs/SECURITY.md): the user of a verified bearer JWT
/// (`identity.jwt`), or of the header a trusted gateway sets (`identity.header`), or nobody.
/// Made once per application; ``IdentityGate`` asks it for every request.
final class UserIdentity: Sendable {
    let settings: IdentitySettings
    /// Verifies bearer tokens; `nil` when no provider is configured (an `Authorization` header
    /// is then not this server's business: it may be forwarded upstream as any header).
    let verifier: TokenVerifier?
    private let clientAddress: ClientAddress
    private let tags: ViewTags
    /// Bearer tokens verified lately, with their users.
    private let acceptedTokens = AcceptedTokens()
    /// The users a trusted gateway's header named lately, by the subject's bytes: a header user is a
    /// function of its subject alone (no claims), whose digests cost about 4 µs to make (each
    /// thread keeps up to 1,024; a full table starts over).
    private let gatewayUsers = RecentHits<ExactText, HubUser>(capacity: 1024)

    /// Longest subject a gateway's header may name.
    static let maximumHeaderSubjectBytes = 256

    init(
        settings: IdentitySettings, verifier: TokenVerifier?, clientAddress: ClientAddress, tags: ViewTags
    ) {
        self.settings = settings
        self.verifier = verifier
        self.clientAddress = clientAddress
        self.tags = tags
    }

    /// What a request presents, read without waiting.
    enum Credentials {
        case none
        /// A user named by a trusted gateway's header.
        case user(HubUser)
        /// A bearer token to verify.
        case bearer(Substring)
    }

    /// The request's credentials. Throws 400 `untrusted_identity` for the identity header from
    /// a peer outside `trustedProxies` (with a bearer token too), 401
    /// `invalid_token` for a bearer token no provider could accept without reading it (too
    /// large, not a Bearer credential).
    func credentials(of request: HTTPRequest) throws -> Credentials {
        // The identity header from a peer that may not set it is refused first, bearer token or not.
        let named = try headerCredentials(of: request)
        // Another scheme (Basic...) is not this server's to judge: it may be forwarded upstream.
        // A bearer token outranks a trusted gateway's header.
        if verifier != nil, let authorization = request.headers["Authorization"], let token = Self.bearerToken(authorization) {
            return .bearer(token)
        }
        return named
    }

    private func headerCredentials(of request: HTTPRequest) throws -> Credentials {
        guard let name = settings.headerName, let value = request.headers[name] else { return .none }
        guard clientAddress.isTrustedPeer(request) else {
            throw HTTPError(
                .badRequest, code: "untrusted_identity",
                detail: "'\(name)' names a user only when a trusted proxy sets it; this peer is not in trustedProxies")
        }
        let subject = value.trimmingOWS()
        guard !subject.isEmpty, subject.utf8.count <= Self.maximumHeaderSubjectBytes,
            !subject.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
        else {
            throw HTTPError(.badRequest, code: "untrusted_identity", detail: "'\(name)' must name a user in 1 to 256 visible bytes")
        }
        let text = String(subject)
        if let known = gatewayUsers.value(for: ExactText(text)) { return .user(known) }
        let named = user(subject: text, claims: [:])
        gatewayUsers.remember(named, for: ExactText(text))
        return .user(named)
    }

    /// The user of a bearer token verified lately, without waiting (``AcceptedTokens``), or
    /// 401 `invalid_token` when its lease says it is refused now (its `exp` has passed); `nil`:
    /// ``verify(_:keepIn:)`` it.
    func acceptedUser(_ token: Substring) throws(HTTPError) -> HubUser? {
        guard let verifier, let answer = acceptedTokens.answer(for: token, verifier: verifier) else { return nil }
        switch answer {
        case .success(let user): return user
        case .failure(let failure): throw Self.invalidToken(Self.detail(of: failure))
        }
    }

    /// Where the calling thread (an event loop) looks for accepted tokens: where a token it
    /// verifies is kept.
    var acceptedTokensPlace: AcceptedTokens.Place { acceptedTokens.currentPlace }

    /// The user of a bearer token, or 401 `invalid_token` (`WWW-Authenticate: Bearer error="invalid_token"`).
    /// A token that verifies is kept in `place` (``acceptedTokensPlace`` of the thread that will
    /// look it up) for ``acceptedUser(_:)``.
    func verify(_ token: Substring, keepIn place: AcceptedTokens.Place) async throws -> HubUser {
        guard let verifier else { throw Self.invalidToken("no identity provider is configured") }
        switch await verifier.verifyLeased(token) {
        case .success(let leased):
            let identity = leased.identity
            var claims: [String: String] = [:]
            for name in settings.claims { if let text = identity.claims[name]?.text { claims[name] = text } }
            var access: [String: [String]] = [:]
            for (name, value) in identity.claims { access[name] = Self.texts(of: value) }
            let verified = user(subject: identity.subject, claims: claims, access: access)
            acceptedTokens.remember(verified, lease: leased.lease, for: token, in: place)
            return verified
        case .failure(let failure):
            throw Self.invalidToken(Self.detail(of: failure))
        }
    }

    /// The engine's user for `subject`: its keyed digest (logs, limits, caches) and the digest
    /// that names its state.
    func user(subject: String, claims: [String: String], access: [String: [String]] = [:]) -> HubUser {
        let digest = String(tags.etag(for: Array(("hub-user.v1:" + subject).utf8)).dropFirst().dropLast())
        let stateName = SHA256.digest(Array(subject.utf8)).map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
        return HubUser(subject: subject, claims: claims, accessClaims: access, digest: digest, stateName: stateName)
    }

    /// The token of `Bearer <token>` (scheme case-insensitive, RFC 9110 11.1); `nil` for another scheme.
    static func bearerToken(_ authorization: String) -> Substring? {
        let trimmed = authorization.trimmingOWS()
        guard trimmed.utf8.count > 7, trimmed.prefix(7).lowercased() == "bearer " else { return nil }
        let token = trimmed.dropFirst(7).drop { $0 == " " }
        return token.isEmpty ? nil : token
    }

    /// A claim's texts for an access rule: a string, number or boolean as its text; an array's members'.
    static func texts(of value: ClaimValue) -> [String] {
        if case .array(let members) = value { return members.compactMap(\.text) }
        return value.text.map { [$0] } ?? []
    }

    static func detail(of failure: VerificationFailure) -> String {
        switch failure {
        case .expired: return "the token has expired"
        case .notYetValid: return "the token is not valid yet"
        case .signature: return "the token's signature does not verify"
        case .issuer: return "the token's issuer is not one this server accepts"
        case .audience: return "the token is not meant for this server (aud)"
        case .algorithm: return "the token's algorithm is not accepted"
        case .unknownKey: return "the token names a key its issuer does not publish"
        case .malformed: return "the token is not a well-formed JWT this server accepts"
        }
    }

    /// 401 `invalid_token` with `WWW-Authenticate: Bearer error="invalid_token"` (RFC 6750 3.1).
    static func invalidToken(_ detail: String) -> HTTPError {
        HTTPError(
            .unauthorized, code: "invalid_token", detail: detail,
            headers: ["WWW-Authenticate": "Bearer realm=\"hubserver\", error=\"invalid_token\""])
    }
}
