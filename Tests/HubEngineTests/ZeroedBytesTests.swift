import HubPrimitives
import Testing

/// `[UInt8].zeroed(count:)`: the bytes `init(repeating: 0, count:)` makes, from its page of
/// zeros up to `zeroPageBytes` and the standard way above, never sharing what a caller writes.
struct ZeroedBytesTests {
    @Test(arguments: [0, 1, 7, 638, [UInt8].zeroPageBytes - 1, [UInt8].zeroPageBytes, [UInt8].zeroPageBytes + 1, 70_000])
    func makesTheZerosRepeatingWouldMake(count: Int) {
        let bytes = [UInt8].zeroed(count: count)
        #expect(bytes.count == count)
        #expect(bytes == [UInt8](repeating: 0, count: count))
    }

    @Test func aNegativeCountMakesNoBytes() {
        #expect([UInt8].zeroed(count: -1).isEmpty)
    }

    /// Each array is its own copy: what one caller writes reaches neither the page nor the next array.
    @Test func writesStayInTheirOwnArray() {
        var first = [UInt8].zeroed(count: [UInt8].zeroPageBytes)
        for index in first.indices { first[index] = 0xFF }
        var second = [UInt8].zeroed(count: [UInt8].zeroPageBytes)
        #expect(second.allSatisfy { $0 == 0 })
        second[0] = 1
        #expect(first.allSatisfy { $0 == 0xFF })
        #expect([UInt8].zeroed(count: 16) == [UInt8](repeating: 0, count: 16))
    }
}
