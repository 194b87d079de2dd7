import Foundation
import Glibc
import JWTKit

/// The development issuer: an Ed25519 key generated on first use and kept in a directory, which
/// signs tokens for `hub-server dev-token` and verifies them for a provider whose keys are
/// ``JWTProviderSettings/KeySource/development(directory:)`` (the config's `"jwks": "dev"`).
///
/// The key file ``keyFileName`` is a JWK with its private part (`d`), mode 0600, in a directory
/// created 0700 when missing. It is written to a temporary file and then linked into place
/// without replacing: of two processes racing to create it, one wins and both use its key.
/// Tokens carry `kid` ``keyID`` and `alg` `EdDSA`.
public enum DevelopmentIssuer {
    /// The config's `"jwks"` value that selects the development issuer.
    public static let keysKeyword = "dev"
    /// The key file's name in its directory.
    public static let keyFileName = "identity-dev-key.json"
    /// The `kid` of the development key.
    public static let keyID = "hub-dev"

    /// A token signed with the development key in `directory` (created if missing): `sub`
    /// `subject`, `iss` `issuer`, `aud` `audience`, `iat` now, `exp` `lifetimeSeconds` later,
    /// plus `claims` (which cannot override those five).
    ///
    /// `async` because jwt-kit's signing is.
    public static func token(
        subject: String, claims: [String: String], issuer: String, audience: String, directory: String,
        lifetimeSeconds: Int = 3600
    ) async throws -> String {
        let key = try privateKey(directory: directory)
        var values = claims.mapValues { ClaimValue.string($0) }
        let now = Date().timeIntervalSince1970.rounded(.down)
        values["sub"] = .string(subject)
        values["iss"] = .string(issuer)
        values["aud"] = .string(audience)
        values["iat"] = .number(now)
        values["exp"] = .number(now + Double(lifetimeSeconds))
        let keys = JWTKeyCollection()
        await keys.add(eddsa: key, kid: JWKIdentifier(string: keyID))
        return try await keys.sign(ClaimSet(values), kid: JWKIdentifier(string: keyID))
    }

    /// The public JWKS of the development key in `directory` (creating the key if missing).
    static func publicJWKS(directory: String) throws -> [UInt8] {
        let key = try privateKey(directory: directory)
        let jwk = JWK.octetKeyPair(
            .eddsa, identifier: JWKIdentifier(string: keyID), x: base64URL(key.publicKey.rawRepresentation), y: nil,
            curve: .ed25519)
        return try [UInt8](JSONEncoder().encode(["keys": [jwk]]))
    }

    /// The key in `directory`'s key file, generated and stored first if the file is missing.
    static func privateKey(directory: String) throws -> EdDSA.PrivateKey {
        let path = directory + "/" + keyFileName
        if let key = try readKey(path) { return key }
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let key = try EdDSA.PrivateKey(curve: .ed25519)
        let jwk = JWK.octetKeyPair(
            .eddsa, identifier: JWKIdentifier(string: keyID), x: base64URL(key.publicKey.rawRepresentation), y: nil,
            curve: .ed25519, privateKey: base64URL(key.rawRepresentation))
        let temporary = path + ".tmp-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        defer { unlink(temporary) }
        try writeNew(temporary, bytes: [UInt8](JSONEncoder().encode(jwk)))
        if link(temporary, path) != 0 {
            // Another process created the key first (EEXIST): use its key.
            guard errno == EEXIST, let existing = try readKey(path) else {
                throw DevelopmentKeyError("cannot create \(path): \(String(cString: strerror(errno)))")
            }
            return existing
        }
        return key
    }

    /// The key stored at `path`, or nil when there is no file.
    private static func readKey(_ path: String) throws -> EdDSA.PrivateKey? {
        guard let data = try readFile(path) else { return nil }
        guard let jwk = try? JSONDecoder().decode(JWK.self, from: data), jwk.keyType == .octetKeyPair,
            jwk.curve?.rawValue == "Ed25519", let d = jwk.privateExponent
        else { throw DevelopmentKeyError("\(path) is not an Ed25519 JWK with its private key") }
        return try EdDSA.PrivateKey(d: d, curve: .ed25519)
    }

    /// The bytes of the file at `path`, or nil when there is none. Read with `open`/`read`,
    /// retried on `EINTR` (a signal to the process, such as a child's exit, interrupts a read;
    /// Foundation's `contents(atPath:)` then answered nil for a file that was there).
    private static func readFile(_ path: String) throws -> Data? {
        var fd: Int32
        repeat { fd = open(path, O_RDONLY | O_CLOEXEC) } while fd < 0 && errno == EINTR
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw DevelopmentKeyError("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count <= 65_536 {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw DevelopmentKeyError("cannot read \(path): \(String(cString: strerror(errno)))") }
            if count == 0 { return Data(bytes) }
            bytes.append(contentsOf: buffer[..<count])
        }
        throw DevelopmentKeyError("\(path) is larger than a key file")
    }

    /// Writes `bytes` to a new file at `path`, mode 0600, flushed to disk.
    private static func writeNew(_ path: String, bytes: [UInt8]) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw DevelopmentKeyError("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw DevelopmentKeyError("cannot write \(path): \(String(cString: strerror(errno)))") }
            offset += written
        }
        guard fsync(fd) == 0 else { throw DevelopmentKeyError("cannot flush \(path)") }
    }

    /// Base64url without padding (RFC 7515, section 2), as JWK members are written.
    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// Why the development key could not be read or created.
struct DevelopmentKeyError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
