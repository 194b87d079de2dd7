import Foundation
import HubEngine
import HubSync
import Testing

/// A store's one observer, called for every change.
@Suite("State observer slot")
struct StateObserverSlotTests {
    @Test("after 20,000 changes the observer is still one call away: a thread with a 128 KiB stack reaches it")
    func callStaysShallow() async throws {
        let slot = StateObserverSlot()
        let calls = Locked(0)
        slot.set { _ in calls.withLock { $0 += 1 } }
        for _ in 0..<20_000 { slot.report(.resync) }
        // Were the observer wrapped once more by each report (a function kept directly as a
        // lock's generic value is), this call would run 40,000 frames deep and overflow the stack.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                slot.report(.resync)
                continuation.resume()
            }
            thread.stackSize = 128 << 10
            thread.start()
        }
        #expect(calls.withLock { $0 } == 20_001)
    }

    @Test("a new observer replaces the previous one")
    func replaces() {
        let slot = StateObserverSlot()
        slot.report(.resync)
        let seen = Locked<[String]>([])
        slot.set { _ in seen.withLock { $0.append("first") } }
        slot.report(.resync)
        slot.set { _ in seen.withLock { $0.append("second") } }
        slot.report(.resync)
        #expect(seen.withLock { $0 } == ["first", "second"])
    }
}
