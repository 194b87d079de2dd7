import Crypto
import Foundation
import HubCrypto
import Testing

/// HMAC-SHA256 by ``MACContexts`` (RFC 2104 over OpenSSL's SHA-256, keyed once): RFC 4231's
/// test vectors, and swift-crypto's HMAC (an independent implementation, on BoringSSL) on
/// random keys of every length around the block size and messages split between prefix and body.
@Suite("MACContexts")
struct MACContextsTests {
    static func mac(_ contexts: MACContexts, key: Int, prefix: [UInt8], _ message: [UInt8]) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: 32)
        let done = prefix.withUnsafeBufferPointer { prefix in
            message.withUnsafeBufferPointer { message in
                out.withUnsafeMutableBufferPointer { contexts.mac(prefix: prefix, message, key: key, into: $0.baseAddress!) }
            }
        }
        return done ? out : nil
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
    static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }

    /// RFC 4231 section 4: test cases 1, 2, 3, 4, 6 and 7 (5 truncates the output).
    static let vectors: [(key: [UInt8], data: [UInt8], mac: String)] = [
        ([UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        ([UInt8](repeating: 0xaa, count: 20), [UInt8](repeating: 0xdd, count: 50),
         "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        (bytes(hex: "0102030405060708090a0b0c0d0e0f10111213141516171819"), [UInt8](repeating: 0xcd, count: 50),
         "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        ([UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        ([UInt8](repeating: 0xaa, count: 131),
         Array("This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.".utf8),
         "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test("RFC 4231's vectors, whatever the split between prefix and message")
    func rfc4231() {
        let contexts = MACContexts(keys: Self.vectors.map(\.key))
        for (index, vector) in Self.vectors.enumerated() {
            for split in [0, 1, vector.data.count / 2, vector.data.count] {
                let mac = Self.mac(contexts, key: index, prefix: Array(vector.data[..<split]), Array(vector.data[split...]))
                #expect(mac.map(Self.hex) == vector.mac, "vector \(index + 1), split at \(split)")
            }
        }
    }

    @Test("the same MAC as swift-crypto's for keys of 0 to 130 bytes and messages across block boundaries")
    func matchesSwiftCrypto() {
        var generator = SystemRandomNumberGenerator()
        let keys = (0...130).map { length in (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) } }
        let contexts = MACContexts(keys: keys)
        for (index, key) in keys.enumerated() {
            let length = [0, 1, 55, 56, 63, 64, 65, 119, 120, 200][index % 10]
            let message = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let split = index % (length + 1)
            let expected = Array(HMAC<Crypto.SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
            #expect(Self.mac(contexts, key: index, prefix: Array(message[..<split]), Array(message[split...])) == expected)
        }
    }

    @Test("each key signs apart, and one key's schedule is shared by concurrent signers")
    func keysApartAndConcurrent() async {
        let contexts = MACContexts(keys: [Array("first".utf8), Array("second".utf8)])
        let message = Array("v1.session.hub:home".utf8)
        let first = Self.mac(contexts, key: 0, prefix: [], message)
        let second = Self.mac(contexts, key: 1, prefix: [], message)
        #expect(first != nil && second != nil && first != second)
        #expect(Self.mac(contexts, key: 2, prefix: [], message) == nil, "a key index out of range signs nothing")
        #expect(Self.mac(contexts, key: -1, prefix: [], message) == nil)
        let agreeing = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 { group.addTask { (0..<200).allSatisfy { _ in Self.mac(contexts, key: 0, prefix: [], message) == first } } }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(agreeing == Array(repeating: true, count: 8))
    }
}
