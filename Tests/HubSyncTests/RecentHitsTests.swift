import Foundation
import HubSync
import Testing

/// `RecentHits`: a thread's last few hits, bounded, starting over when full.
@Suite struct RecentHitsTests {
    @Test func keepsTheCallingThreadsHitsUpToItsCapacity() {
        let hits = RecentHits<String, Int>(capacity: 3)
        #expect(hits.value(for: "a") == nil)
        for (index, key) in ["a", "b", "c"].enumerated() { hits.remember(index, for: key) }
        #expect(hits.value(for: "a") == 0)
        #expect(hits.value(for: "c") == 2)
        // The same key again replaces its value and does not count twice.
        hits.remember(20, for: "c")
        #expect(hits.value(for: "c") == 20)
        #expect(hits.value(for: "b") == 1)
        // A fourth key: the full stripe starts over, keeping only the newest.
        hits.remember(3, for: "d")
        #expect(hits.value(for: "d") == 3)
        #expect(hits.value(for: "a") == nil)
        #expect(hits.value(for: "b") == nil)
        #expect(hits.value(for: "c") == nil)
    }

    @Test("the last hit, compared before any hashing, always answers what the stripe holds")
    func lastHitAnswersWhatTheStripeHolds() {
        let hits = RecentHits<String, Int>(capacity: 2)
        hits.remember(1, for: "a")
        hits.remember(2, for: "b")
        // Alternating keys move the last hit back and forth; a miss leaves it as it was.
        for _ in 0..<3 {
            #expect(hits.value(for: "a") == 1)
            #expect(hits.value(for: "missing") == nil)
            #expect(hits.value(for: "a") == 1)
            #expect(hits.value(for: "b") == 2)
        }
        // Replacing the last hit's value answers the new one.
        hits.remember(20, for: "b")
        #expect(hits.value(for: "b") == 20)
        // Starting over drops the old last hit with the rest.
        hits.remember(3, for: "c")
        #expect(hits.value(for: "b") == nil && hits.value(for: "a") == nil && hits.value(for: "c") == 3)
    }

    @Test func capacityIsAtLeastOne() {
        let hits = RecentHits<Int, String>(capacity: 0)
        #expect(hits.capacity == 1)
        hits.remember("x", for: 1)
        #expect(hits.value(for: 1) == "x")
        hits.remember("y", for: 2)
        #expect(hits.value(for: 2) == "y")
        #expect(hits.value(for: 1) == nil)
    }

    /// Runs `body` on a thread of its own, waits for it, and keeps that thread alive until
    /// `release` is signalled: a thread that ended may be followed by one with the same
    /// `pthread_t` (its descriptor reused), and so the same stripe, every time.
    static func onAnotherLiveThread(release: DispatchSemaphore, _ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
            release.wait()
        }
        thread.start()
        done.wait()
    }

    @Test("a stripe taken on one thread is remembered into from another, and found by the first")
    func stripeReferenceRemembersForTheThreadThatTookIt() {
        // Until a thread is found whose own stripe is not this one's (1 in 8 share it). The
        // threads stay alive until the end, so each has a descriptor, and a stripe, of its own.
        let release = DispatchSemaphore(value: 0)
        var started = 0
        var otherStripeSeen = false
        for attempt in 0..<64 where !otherStripeSeen {
            let hits = RecentHits<String, Int>(capacity: 8)
            let here = hits.currentStripe
            Self.onAnotherLiveThread(release: release) {
                here.remember(attempt, for: "verified")
                hits.remember(attempt, for: "elsewhere")
            }
            started += 1
            #expect(hits.value(for: "verified") == attempt)
            otherStripeSeen = hits.value(for: "elsewhere") == nil
        }
        for _ in 0..<started { release.signal() }
        #expect(otherStripeSeen)
    }

    @Test func concurrentThreadsNeverLoseTheirOwnLastHit() async {
        let hits = RecentHits<Int, Int>(capacity: 4)
        await withTaskGroup(of: Bool.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var consistent = true
                    for round in 0..<2_000 {
                        let key = worker * 10_000 + round
                        hits.remember(round, for: key)
                        // Another thread sharing the stripe may start it over in between; a
                        // value found is always the one stored for that key.
                        if let value = hits.value(for: key), value != round { consistent = false }
                    }
                    return consistent
                }
            }
            for await consistent in group { #expect(consistent) }
        }
    }
}
