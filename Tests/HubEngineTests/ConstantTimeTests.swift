import HubPrimitives
import Testing

/// ``ConstantTime/equal`` answers what `==` on the bytes answers, for equal inputs, inputs
/// that differ in their first or last byte (or any byte) and inputs of different lengths.
@Suite("Constant-time comparison")
struct ConstantTimeTests {
    static let token = Array("AbCdEfGhIjKlMnOpQrStUv.saHViOnRvZG8.1800000000.0123456789abcdefghijklmnopqrstuvwxyzABCDEFG".utf8)

    @Test("equal bytes are equal; a change in the first, the last or any byte is not; nor is another length")
    func bytes() {
        let token = Self.token
        #expect(ConstantTime.equal(token, token))
        #expect(ConstantTime.equal([], []))
        var first = token
        first[0] ^= 0x01
        #expect(!ConstantTime.equal(token, first))
        var last = token
        last[last.count - 1] ^= 0x80
        #expect(!ConstantTime.equal(token, last))
        for index in token.indices {
            for flip: UInt8 in [0x01, 0x80, 0xFF] {
                var changed = token
                changed[index] ^= flip
                #expect(!ConstantTime.equal(token, changed), "byte \(index) ^ \(flip)")
                #expect(!ConstantTime.equal(changed, token))
            }
        }
        #expect(!ConstantTime.equal(token, Array(token.dropLast())))
        #expect(!ConstantTime.equal(Array(token.dropLast()), token))
        #expect(!ConstantTime.equal(token, token + [0]))
        #expect(!ConstantTime.equal([], [0]))
        #expect(!ConstantTime.equal(token, []))
    }

    @Test("strings compare their UTF-8 bytes, not canonical equivalence as == does")
    func strings() {
        let text = String(decoding: Self.token, as: UTF8.self)
        #expect(ConstantTime.equal(text, String(decoding: Self.token, as: UTF8.self)))
        #expect(!ConstantTime.equal(text, String(text.dropLast())))
        #expect(!ConstantTime.equal(text, "x" + text.dropFirst()))
        #expect("\u{E9}" == "e\u{301}", "Swift's == says these are equal")
        #expect(!ConstantTime.equal("\u{E9}", "e\u{301}"), "their bytes differ")
        #expect(ConstantTime.equal("", ""))
    }
}
