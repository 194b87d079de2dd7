import Foundation
@testable import HubCrypto
import Testing

/// base64url without padding: contiguous input (the fast path) and any sequence encode alike,
/// as Foundation's base64 with the URL alphabet and no padding does, and decode back.
@Suite("Base64URL")
struct Base64URLTests {
    static func reference(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test("every length from 0 to 70, contiguous and not, after a prefix already in the output")
    func lengths() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var contiguous = Array("p.".utf8)
            Base64URL.append(bytes, to: &contiguous)
            var sequential = Array("p.".utf8)
            Base64URL.append(bytes.lazy.map { $0 }, to: &sequential)
            #expect(String(decoding: contiguous, as: UTF8.self) == "p." + Self.reference(bytes), "length \(length)")
            #expect(contiguous == sequential, "length \(length)")
            #expect(Base64URL.decode(contiguous.dropFirst(2)) == bytes, "length \(length)")
        }
    }
}
