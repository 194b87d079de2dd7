import Testing
@testable import HubHTTP

/// The word-at-a-time checks answer what a byte-by-byte loop answers, for every byte value in
/// every position of a word and in the tail, and over random buffers of every length to 40.
@Suite("Byte scans of the request line and field values")
struct ByteScanTests {
    private func visible(_ bytes: [UInt8]) -> Bool { bytes.allSatisfy { $0 > 0x20 && $0 < 0x7F } }
    private func plain(_ bytes: [UInt8]) -> Bool { bytes.allSatisfy { $0 != 0 && $0 != UInt8(ascii: "%") && $0 < 0x80 } }
    private func fieldValue(_ bytes: [UInt8]) -> Bool { bytes.allSatisfy { ($0 >= 0x20 || $0 == 0x09) && $0 != 0x7F } }

    @Test("every byte value, in each of a word's eight places and in the tail")
    func everyByteInEveryPlace() {
        for length in [1, 7, 8, 9, 16, 19] {
            for position in 0..<length {
                for value in 0...255 {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[position] = UInt8(value)
                    bytes.withUnsafeBytes { raw in
                        #expect(ByteScan.isVisibleASCII(raw) == visible(bytes), "visible \(value) at \(position) of \(length)")
                        #expect(ByteScan.isPlainASCII(raw) == plain(bytes), "plain \(value) at \(position) of \(length)")
                        #expect(ByteScan.isFieldValue(raw) == fieldValue(bytes), "field value \(value) at \(position) of \(length)")
                    }
                }
            }
        }
    }

    @Test("random buffers, with bytes near every boundary")
    func randomBuffers() {
        var generator = SystemRandomNumberGenerator()
        let interesting: [UInt8] = [0, 1, 0x09, 0x0A, 0x0D, 0x1F, 0x20, 0x21, 0x24, 0x25, 0x26, 0x7E, 0x7F, 0x80, 0xFE, 0xFF, 0x61]
        for _ in 0..<4000 {
            let length = Int.random(in: 0...40, using: &generator)
            let bytes = (0..<length).map { _ in
                Bool.random(using: &generator) ? interesting.randomElement(using: &generator)! : UInt8(ascii: "a")
            }
            bytes.withUnsafeBytes { raw in
                #expect(ByteScan.isVisibleASCII(raw) == visible(bytes))
                #expect(ByteScan.isPlainASCII(raw) == plain(bytes))
                #expect(ByteScan.isFieldValue(raw) == fieldValue(bytes))
            }
        }
    }

    @Test("a request target with a percent escape past the first word is still decoded")
    func escapeAfterTheFirstWord() throws {
        let target = try RequestTarget.parse(Array("/view?uri=hub%3Ahome&session=abcdefghijklmnop%2D".utf8))
        #expect(target.query.map(\.value) == ["hub:home", "abcdefghijklmnop-"])
    }
}
