import HubModel
import Testing

/// The writer scans eight bytes at a time: every escapable byte at every offset must still be escaped.
@Test func writerEscapesAtEveryOffset() throws {
    for special in [UInt8(0x00), 0x01, 0x0A, 0x1F, 0x22, 0x5C] {
        for offset in 0..<20 {
            var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 20)
            bytes[offset] = special
            bytes.append(contentsOf: Array("é😀".utf8))
            let string = String(decoding: bytes, as: UTF8.self)
            let encoded = JSONValue.string(string).jsonBytes
            #expect(try JSONParser().parse(encoded) == .string(string))
            if special < 0x20 { #expect(!encoded.contains(special)) }
        }
    }
}
