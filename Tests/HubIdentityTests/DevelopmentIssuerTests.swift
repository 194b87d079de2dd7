import Foundation
import HubIdentity
import HubSync
import Testing

/// The development issuer: a key made on first use, kept private on disk, shared by every
/// token and verifier that names its directory.
@Suite struct DevelopmentIssuerTests {
    /// A fresh directory path under the temporary directory (not created).
    private func freshDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("hub-dev-\(UUID().uuidString)").path
    }

    private func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int) & 0o777
    }

    private func verifier(directory: String, issuer: String = "hub-dev", audience: String = "hub") -> TokenVerifier {
        TokenVerifier(
            providers: [JWTProviderSettings(issuer: issuer, audiences: [audience], keys: .development(directory: directory))],
            upstream: identityClient())
    }

    @Test func aDevelopmentTokenVerifiesAndTheKeyIsPrivateAndReused() async throws {
        let base = freshDirectory()
        let directory = base + "/nested/keys"
        defer { try? FileManager.default.removeItem(atPath: base) }
        let token = try await DevelopmentIssuer.token(
            subject: "dev-user", claims: ["role": "admin", "sub": "ignored"], issuer: "hub-dev", audience: "hub", directory: directory)
        let keyFile = directory + "/" + DevelopmentIssuer.keyFileName
        #expect(try mode(keyFile) == 0o600)
        #expect(try mode(directory) == 0o700)
        let stored = try Data(contentsOf: URL(fileURLWithPath: keyFile))
        #expect(DevelopmentIssuer.keysKeyword == "dev")

        let verifier = verifier(directory: directory)
        await verifier.start()
        defer { verifier.shutdown() }
        let identity = try #require(await verifier.verify(Substring(token)).identity)
        #expect(identity.subject == "dev-user")
        #expect(identity.issuer == "hub-dev")
        #expect(identity.claims["role"] == .string("admin"))
        #expect(identity.claims["aud"] == .string("hub"))
        let header = try #require(Data(base64URLEncoded: String(token.split(separator: ".")[0])))
        let fields = try #require(JSONSerialization.jsonObject(with: header) as? [String: Any])
        #expect(fields["kid"] as? String == "hub-dev" && fields["alg"] as? String == "EdDSA")
        let lifetime = identity.expiresAt - Int(Date().timeIntervalSince1970)
        #expect((3500...3600).contains(lifetime))

        // A second token reuses the key: the file is unchanged and the running verifier accepts it.
        let second = try await DevelopmentIssuer.token(
            subject: "other", claims: [:], issuer: "hub-dev", audience: "hub", directory: directory, lifetimeSeconds: 60)
        #expect(try Data(contentsOf: URL(fileURLWithPath: keyFile)) == stored)
        #expect(await verifier.verify(Substring(second)).identity?.subject == "other")
        #expect(verifier.status().first?.keys == 1)

        // Another directory's key is another key.
        let elsewhere = freshDirectory()
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        let foreign = try await DevelopmentIssuer.token(subject: "x", claims: [:], issuer: "hub-dev", audience: "hub", directory: elsewhere)
        #expect(await verifier.verify(Substring(foreign)).failure == .signature)
    }

    @Test func theVerifierCreatesTheKeyWhenMissing() async throws {
        let directory = freshDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let verifier = verifier(directory: directory)
        await verifier.start()
        defer { verifier.shutdown() }
        #expect(verifier.status().first?.keys == 1)
        #expect(FileManager.default.fileExists(atPath: directory + "/" + DevelopmentIssuer.keyFileName))
        let token = try await DevelopmentIssuer.token(subject: "s", claims: [:], issuer: "hub-dev", audience: "hub", directory: directory)
        #expect(await verifier.verify(Substring(token)).failure == nil)
    }

    @Test func racingCreatorsEndWithOneKey() async throws {
        // Several rounds, each in a fresh directory: the creators wait at a barrier and start
        // together, so on two cores at least two find no file and make a key each; the one whose
        // key is not the file's would sign tokens nothing verifies.
        for _ in 0..<4 {
            let directory = freshDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let go = Locked(false)
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        while !go.withLock({ $0 }) { await Task.yield() }
                        return try await DevelopmentIssuer.token(
                            subject: "u\(index)", claims: [:], issuer: "hub-dev", audience: "hub", directory: directory)
                    }
                }
                go.withLock { $0 = true }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            let files = try FileManager.default.contentsOfDirectory(atPath: directory)
            #expect(files == [DevelopmentIssuer.keyFileName])
            let verifier = verifier(directory: directory)
            await verifier.start()
            defer { verifier.shutdown() }
            for token in tokens {
                #expect(await verifier.verify(Substring(token)).failure == nil)
            }
        }
    }

    @Test func aCorruptKeyFileIsAnErrorNotAReplacement() async throws {
        let directory = freshDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let keyFile = directory + "/" + DevelopmentIssuer.keyFileName
        try Data("not a key".utf8).write(to: URL(fileURLWithPath: keyFile))
        await #expect(throws: (any Error).self) {
            try await DevelopmentIssuer.token(subject: "s", claims: [:], issuer: "hub-dev", audience: "hub", directory: directory)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: keyFile)) == Data("not a key".utf8))
        let verifier = verifier(directory: directory)
        await verifier.start()
        defer { verifier.shutdown() }
        #expect(verifier.status().first?.keys == 0)
        #expect(verifier.status().first?.error != nil)
    }
}

extension Data {
    /// Decodes base64url without padding.
    init?(base64URLEncoded text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        self.init(base64Encoded: base64)
    }
}
