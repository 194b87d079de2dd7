import Testing
@testable import HubEngine

@Suite struct RingQueueTests {
    @Test func firstInFirstOutAcrossWrapAroundAndGrowth() {
        var queue = RingQueue<Int>()
        var expected: [Int] = []
        var next = 0
        // Interleave appends and pops so the head wraps around several times while growing.
        for round in 0..<200 {
            for _ in 0..<(round % 7 + 3) {
                queue.append(next)
                expected.append(next)
                next += 1
            }
            for _ in 0..<(round % 5 + 1) {
                #expect(queue.first == expected.first)
                #expect(queue.popFirst() == expected.removeFirst())
            }
            #expect(queue.count == expected.count)
        }
        while let value = queue.popFirst() { #expect(value == expected.removeFirst()) }
        #expect(expected.isEmpty)
        #expect(queue.isEmpty)
        #expect(queue.first == nil)
        #expect(queue.popFirst() == nil)
    }

    @Test func retainKeepsOrderAndCount() {
        var queue = RingQueue<Int>()
        for value in 0..<40 { queue.append(value) }
        for _ in 0..<10 { _ = queue.popFirst() }
        for value in 40..<50 { queue.append(value) }
        queue.retain { $0 % 3 == 0 }
        var drained: [Int] = []
        while let value = queue.popFirst() { drained.append(value) }
        #expect(drained == Array(10..<50).filter { $0 % 3 == 0 })
        queue.append(7)
        #expect(queue.popFirst() == 7)
    }
}
