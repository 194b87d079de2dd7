import Testing
@testable import HubHTTP

/// An event loop reads each clock once per wakeup (`WakeupClock`), and deadlines are computed
/// from that reading (`MonotonicClock.deadline(after:from:)`).
@Suite struct WakeupClockTests {
    @Test("each clock is read once until forgotten; after forget() a later reading is made")
    func readOnceUntilForgotten() async throws {
        var clock = WakeupClock()
        let time = clock.monotonic()
        let instant = clock.continuous()
        try await Task.sleep(for: .milliseconds(2))
        #expect(clock.monotonic() == time, "kept for the wakeup")
        #expect(clock.continuous() == instant)
        clock.forget()
        let later = clock.monotonic()
        #expect(later >= time + 2_000_000, "read again: at least the 2 ms slept later")
        #expect(clock.continuous() - instant >= .milliseconds(2))
        #expect(clock.monotonic() == later)
    }

    @Test("a deadline is its start plus the duration, saturating: none or negative is the start, past 68 years never")
    func deadlineFromAStart() {
        let start: UInt64 = 5_000_000_000
        #expect(MonotonicClock.deadline(after: .milliseconds(1500), from: start) == 6_500_000_000)
        #expect(MonotonicClock.deadline(after: .zero, from: start) == start)
        #expect(MonotonicClock.deadline(after: .seconds(-3), from: start) == start)
        #expect(MonotonicClock.deadline(after: .seconds(Int64(Int32.max) + 1), from: start) == .max)
        let before = MonotonicClock.now
        let fresh = MonotonicClock.deadline(after: .seconds(1))
        #expect(fresh >= before + 1_000_000_000 && fresh <= MonotonicClock.now + 1_000_000_000)
    }
}
