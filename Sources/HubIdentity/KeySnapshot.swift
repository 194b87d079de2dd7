import Foundation
import JWTKit

/// One provider's public keys as loaded at one refresh: immutable, swapped whole under the
/// provider's lock, so a verification reads it without waiting on a refresh.
///
/// Each usable key of the JWKS is added to one jwt-kit `JWTKeyCollection` per algorithm it may
/// verify, as a copy whose `alg` is fixed to that algorithm: jwt-kit then verifies with exactly
/// the algorithm the token's header names (checked against the key's type and curve here), and
/// never with one a first token happened to pick for a key without `alg`.
///
/// Never loaded: `kty: oct` (symmetric) keys and any other key type jwt-kit does not verify with,
/// keys with `use` other than `sig`, keys that jwt-kit refuses (an RSA modulus under 2048 bits,
/// a point off its curve), a second key with the same `kid`. Private parts (`d`, `p`, `q`) are
/// dropped. A key without `kid` is usable only by tokens without `kid`, when it is the
/// provider's only key.
final class KeySnapshot: Sendable {
    /// What a token's `kid` and `alg` find.
    enum Lookup {
        /// The collection to verify with: it holds the key under the token's `kid`.
        case found(JWTKeyCollection)
        /// The key exists but cannot verify this algorithm (another type, curve or `alg`).
        case wrongAlgorithm
        /// No key has this `kid`.
        case unknownKid
        /// The token has no `kid` and the provider has more (or fewer) than one key.
        case noKid
    }

    /// The most bytes of a JWKS document (or of a discovery document) read.
    static let maximumBytes = 1 << 20

    /// For each `kid`, the algorithms its key may verify (within the provider's list).
    let algorithmsByKid: [String: Set<String>]
    /// For each algorithm, the collection holding every key that may verify it.
    private let collections: [String: JWTKeyCollection]

    private init(algorithmsByKid: [String: Set<String>], collections: [String: JWTKeyCollection]) {
        self.algorithmsByKid = algorithmsByKid
        self.collections = collections
    }

    /// No keys: a provider's snapshot before its first successful load.
    static let empty = KeySnapshot(algorithmsByKid: [:], collections: [:])

    /// How many usable keys (distinct `kid`s) it holds.
    var count: Int { algorithmsByKid.count }

    /// What a token's `kid` (nil when it has none) and `alg` find.
    func lookup(kid: String?, alg: String) -> Lookup {
        guard let kid = kid ?? (algorithmsByKid.count == 1 ? algorithmsByKid.keys.first : nil) else { return .noKid }
        guard let algorithms = algorithmsByKid[kid] else { return .unknownKid }
        guard algorithms.contains(alg), let collection = collections[alg] else { return .wrongAlgorithm }
        return .found(collection)
    }

    /// Loads the JWKS `document`, keeping the keys that may verify one of `algorithms`.
    /// Throws ``KeyLoadError`` for a document that is too large or not a JWKS, and for one with
    /// no usable key (so the last good keys stay).
    static func load(jwks document: [UInt8], algorithms: [String]) async throws(KeyLoadError) -> KeySnapshot {
        guard document.count <= maximumBytes else { throw KeyLoadError("JWKS larger than \(maximumBytes) bytes") }
        let entries: [JWKSDocument.Entry]
        do {
            entries = try JSONDecoder().decode(JWKSDocument.self, from: Data(document)).keys
        } catch {
            throw KeyLoadError("JWKS is not a JSON object with a keys array")
        }
        var algorithmsByKid: [String: Set<String>] = [:]
        var collections: [String: JWTKeyCollection] = [:]
        for (index, entry) in entries.enumerated() {
            guard var jwk = entry.jwk else { continue }
            // A key without kid gets a name no JSON text can collide with by accident; a token
            // naming it explicitly still has to verify against it.
            let kid = jwk.keyIdentifier?.string ?? "\u{0}\(index)"
            guard algorithmsByKid[kid] == nil else { continue }
            jwk.privateExponent = nil
            jwk.prime1 = nil
            jwk.prime2 = nil
            jwk.keyIdentifier = JWKIdentifier(string: kid)
            var usable: Set<String> = []
            for alg in candidateAlgorithms(jwk) where algorithms.contains(alg) {
                var copy = jwk
                copy.algorithm = JWK.Algorithm(rawValue: alg)
                let collection = collections[alg] ?? JWTKeyCollection()
                do {
                    try await collection.add(jwk: copy)
                } catch {
                    continue
                }
                collections[alg] = collection
                usable.insert(alg)
            }
            if !usable.isEmpty { algorithmsByKid[kid] = usable }
        }
        guard !algorithmsByKid.isEmpty else { throw KeyLoadError("JWKS has no usable signature key for \(algorithms.joined(separator: ", "))") }
        return KeySnapshot(algorithmsByKid: algorithmsByKid, collections: collections)
    }

    /// The algorithms a key may verify by its type and curve, narrowed to its own `alg` if it has one.
    private static func candidateAlgorithms(_ jwk: JWK) -> [String] {
        let byType: [String]
        switch (jwk.keyType.rawValue, jwk.curve?.rawValue) {
        case ("RSA", _): byType = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"]
        case ("EC", "P-256"): byType = ["ES256"]
        case ("EC", "P-384"): byType = ["ES384"]
        case ("EC", "P-521"): byType = ["ES512"]
        case ("OKP", "Ed25519"): byType = ["EdDSA"]
        default: byType = []
        }
        guard let own = jwk.algorithm?.rawValue else { return byType }
        return byType.filter { $0 == own }
    }
}

/// Why a provider's keys could not be loaded; ``message`` goes to its status and the log.
struct KeyLoadError: Error, Sendable {
    let message: String
    init(_ message: String) { self.message = message }
}

/// A JWKS as read here: each member of `keys` kept as a jwt-kit `JWK` when it is a signature key
/// of a type jwt-kit verifies with, skipped otherwise (an unknown or symmetric key does not spoil
/// the set).
private struct JWKSDocument: Decodable {
    struct Entry: Decodable {
        let jwk: JWK?

        init(from decoder: any Decoder) throws {
            guard let fields = try? decoder.container(keyedBy: ClaimKey.self),
                let type = try? fields.decode(String.self, forKey: ClaimKey("kty")),
                ["RSA", "EC", "OKP"].contains(type)
            else {
                jwk = nil
                return
            }
            let use: String? = try? fields.decodeIfPresent(String.self, forKey: ClaimKey("use"))
            guard use == nil || use == "sig" else {
                jwk = nil
                return
            }
            jwk = try? JWK(from: decoder)
        }
    }

    let keys: [Entry]
}
