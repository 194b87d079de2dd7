#if canImport(Glibc)
import Glibc
import HubPrimitives
#endif

/// Nanoseconds on the monotonic clock (`CLOCK_MONOTONIC`, a vDSO call without a syscall).
enum MonotonicClock {
    static var now: UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    /// `now + duration`, saturating: durations past about 68 years (or negative) mean never / now.
    static func deadline(after duration: Duration) -> UInt64 {
        deadline(after: duration, from: now)
    }

    /// `start + duration`, saturating as ``deadline(after:)``.
    static func deadline(after duration: Duration, from start: UInt64) -> UInt64 {
        let nanoseconds = duration.nanoseconds
        guard nanoseconds > 0 else { return start }
        guard nanoseconds < Int(Int32.max) * 1_000_000_000 else { return .max }
        return start &+ UInt64(nanoseconds)
    }
}

/// The timers of one event loop: a binary min-heap of (deadline, action), ties in insertion order.
///
/// There is no cancellation: an action checks, when it runs, whether it is still wanted
/// (connections compare the deadline they currently have). Callers keep the number of entries
/// small by arming a timer only when the new deadline is earlier than the one already armed.
struct TimerHeap {
    private struct Entry {
        let at: UInt64
        let sequence: UInt64
        let action: () -> Void

        func precedes(_ other: Entry) -> Bool {
            at != other.at ? at < other.at : sequence < other.sequence
        }
    }

    private var entries: [Entry] = []
    private var nextSequence: UInt64 = 0

    var isEmpty: Bool { entries.isEmpty }

    /// The earliest deadline, if any.
    var earliest: UInt64? { entries.first?.at }

    mutating func schedule(at deadline: UInt64, _ action: @escaping () -> Void) {
        entries.append(Entry(at: deadline, sequence: nextSequence, action: action))
        nextSequence &+= 1
        siftUp(entries.count - 1)
    }

    /// Removes and returns the action of the earliest entry if it is due at `now`.
    mutating func popDue(now: UInt64) -> (() -> Void)? {
        guard let first = entries.first, first.at <= now else { return nil }
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            siftDown(0)
        }
        return first.action
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { return }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < entries.count else { return }
            var smallest = left
            let right = left + 1
            if right < entries.count, entries[right].precedes(entries[left]) { smallest = right }
            guard entries[smallest].precedes(entries[parent]) else { return }
            entries.swapAt(smallest, parent)
            parent = smallest
        }
    }
}
