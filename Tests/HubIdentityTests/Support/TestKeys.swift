import CryptoExtras
import Foundation
import JWTKit
import Testing

/// A signing key made in the test with swift-crypto through jwt-kit, its public JWK, and tokens
/// signed with it (any header, any payload: the tests forge what they need).
struct TestKey: Sendable {
    let kid: String
    /// The `alg` tokens are signed with.
    let alg: String
    /// The public JWK as a JSON object (what a JWKS lists).
    let publicJWK: [String: String]
    let signer: any JWTAlgorithm

    /// An RSA 2048-bit key (RS256 unless `alg` says PS256 and so on).
    static func rsa(kid: String, alg: String = "RS256") async throws -> TestKey {
        let key = try TestKey.rsaPrivateKey()
        return try await rsa(key, kid: kid, alg: alg)
    }

    /// A new RSA 2048-bit private key.
    static func rsaPrivateKey() throws -> JWTKit.Insecure.RSA.PrivateKey {
        try JWTKit.Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
    }

    /// The RSA `key` signing with `alg`.
    static func rsa(_ key: JWTKit.Insecure.RSA.PrivateKey, kid: String, alg: String) async throws -> TestKey {
        let (modulus, exponent) = try key.publicKey.getKeyPrimitives()
        let digest: DigestAlgorithm = alg.hasSuffix("512") ? .sha512 : alg.hasSuffix("384") ? .sha384 : .sha256
        let keys = JWTKeyCollection()
        if alg.hasPrefix("PS") {
            await keys.add(pss: key, digestAlgorithm: digest, kid: JWKIdentifier(string: kid))
        } else {
            await keys.add(rsa: key, digestAlgorithm: digest, kid: JWKIdentifier(string: kid))
        }
        return TestKey(
            kid: kid, alg: alg, publicJWK: ["kty": "RSA", "kid": kid, "n": base64URL(modulus), "e": base64URL(exponent)],
            signer: try await keys.getKey(for: JWKIdentifier(string: kid)))
    }

    /// A P-256 key (ES256).
    static func p256(kid: String) async throws -> TestKey {
        let key = ES256PrivateKey()
        let parameters = try #require(key.parameters)
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: key, kid: JWKIdentifier(string: kid))
        return TestKey(
            kid: kid, alg: "ES256", publicJWK: ["kty": "EC", "crv": "P-256", "kid": kid, "x": parameters.x, "y": parameters.y],
            signer: try await keys.getKey(for: JWKIdentifier(string: kid)))
    }

    /// An Ed25519 key (EdDSA).
    static func ed25519(kid: String) async throws -> TestKey {
        let key = try EdDSA.PrivateKey(curve: .ed25519)
        let keys = JWTKeyCollection()
        await keys.add(eddsa: key, kid: JWKIdentifier(string: kid))
        return TestKey(
            kid: kid, alg: "EdDSA",
            publicJWK: ["kty": "OKP", "crv": "Ed25519", "kid": kid, "x": base64URL(key.publicKey.rawRepresentation)],
            signer: try await keys.getKey(for: JWKIdentifier(string: kid)))
    }

    /// A token signed with this key: the header has this key's `alg` and `kid` (none with
    /// `omitKid`), then `extra`'s members; the payload is written as given.
    func token(_ payload: [String: Any], header extra: [String: Any] = [:], omitKid: Bool = false) throws -> String {
        var header: [String: Any] = ["alg": alg, "typ": "JWT"]
        if !omitKid { header["kid"] = kid }
        header.merge(extra) { _, new in new }
        return try Self.sign(header: header, payload: payload, with: signer)
    }

    /// `base64url(header).base64url(payload).base64url(signature by signer)`.
    static func sign(header: [String: Any], payload: [String: Any], with signer: any JWTAlgorithm) throws -> String {
        let input = try encode(header) + "." + encode(payload)
        return input + "." + base64URL(Data(try signer.sign(Array(input.utf8))))
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

/// A JWKS document listing `keys`' public JWKs, then `extra` raw members.
func jwks(_ keys: [TestKey], extra: [[String: String]] = []) -> [UInt8] {
    let members = keys.map(\.publicJWK) + extra
    return [UInt8](try! JSONSerialization.data(withJSONObject: ["keys": members], options: [.sortedKeys]))
}
