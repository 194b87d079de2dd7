import HubEngine
import Testing

/// The locale a session was opened with travels in its token (a fifth part before the MAC):
/// covered by the MAC, kept by a rebuild; a token without one keeps the four-part form, so
/// tokens issued before locales existed still verify.
@Suite("Session tokens carry the locale")
struct SessionTokenLocaleTests {
    static let keys = SessionKeys.ephemeral()
    static let now: Int64 = 1_800_000_000

    static func verify(_ text: String) -> Result<SessionToken, SessionToken.Rejection> {
        SessionToken.verify(text, keys: keys, now: now, maxAge: 3600)
    }

    @Test("a token with a locale verifies and names it; without one it has four parts and none")
    func roundTrip() throws {
        let id = SessionIdentifier.make()
        let german = SessionToken(id: id, viewURI: "hub:home", issuedAt: Self.now, keys: Self.keys, locale: "fr-CA")
        #expect(german.encoded.split(separator: ".").count == 5)
        #expect(german.locale == "fr-CA")
        let verified = try Self.verify(german.encoded).get()
        #expect(verified.locale == "fr-CA")
        #expect(verified.viewURI == "hub:home")

        let plain = SessionToken(id: id, viewURI: "hub:home", issuedAt: Self.now, keys: Self.keys)
        #expect(plain.encoded.split(separator: ".").count == 4)
        #expect(try Self.verify(plain.encoded).get().locale == nil)
        // A value that cannot be a tag is not written (the token stays valid without it).
        let odd = SessionToken(id: id, viewURI: "hub:home", issuedAt: Self.now, keys: Self.keys, locale: "de.x")
        #expect(odd.locale == nil)
        #expect(odd.encoded.split(separator: ".").count == 4)
    }

    @Test("the locale is covered by the MAC: changed, added or removed, the token is refused")
    func tampering() {
        let id = SessionIdentifier.make()
        let token = SessionToken(id: id, viewURI: "hub:home", issuedAt: Self.now, keys: Self.keys, locale: "de").encoded
        var parts = token.split(separator: ".").map(String.init)
        parts[3] = "en"
        #expect(Self.verify(parts.joined(separator: ".")) == .failure(.signature))
        parts.remove(at: 3)
        #expect(Self.verify(parts.joined(separator: ".")) == .failure(.signature))
        let plain = SessionToken(id: id, viewURI: "hub:home", issuedAt: Self.now, keys: Self.keys).encoded.split(separator: ".")
            .map(String.init)
        let added = plain[0...2] + ["de"] + [plain[3]]
        #expect(Self.verify(added.joined(separator: ".")) == .failure(.signature))
        var bad = token.split(separator: ".").map(String.init)
        bad[3] = "d_e"
        #expect(Self.verify(bad.joined(separator: ".")) == .failure(.malformed))
    }
}
