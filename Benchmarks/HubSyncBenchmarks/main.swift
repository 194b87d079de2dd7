// HubSync lock benchmark: `HubSync.Locked` (a `Synchronization.Mutex` with an acquire/release
// hand-off marker ThreadSanitizer can see) against the pthread mutex it replaced, a bare
// `Mutex`, and a `Mutex` with an acquire-release counter (two read-modify-writes a section),
// uncontended and with two threads on one lock, with a counter or a dictionary update inside.
//   make bench-sync   (swift run -c release HubSyncBenchmarks)
// Rounds alternate the variants; the median of each is printed (ns per lock/unlock pair).
import Dispatch
import Glibc
import HubPrimitives
import HubSync
import Synchronization

/// The pthread mutex `HubSync.Locked` was before (for the comparison).
final class PthreadLocked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched between pthread_mutex_lock and _unlock on a mutex at
    // a fixed heap address; values in and out are Sendable in this benchmark.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value
    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }
    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&value)
    }
}

/// `Mutex` in a class (as `Locked` is shared by reference): what TSan reports as racing.
final class BareMutex<Value: Sendable>: Sendable {
    let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { mutex.withLock { body(&$0) } }
}

/// `Mutex` with an acquire-release increment on entry and exit of each critical section
/// (what `HubUpstream.Locked` was).
final class CountingMutex<Value: Sendable>: Sendable {
    let mutex: Mutex<Value>
    let handOff = Atomic<UInt32>(0)
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R {
        mutex.withLock { value in
            handOff.add(1, ordering: .acquiringAndReleasing)
            defer { handOff.add(1, ordering: .acquiringAndReleasing) }
            return body(&value)
        }
    }
}

let iterations = 4_000_000
let rounds = 7

/// Nanoseconds per iteration of `body(iterations)` run on `threads` threads at once.
func measure(threads: Int, _ body: @escaping @Sendable (Int) -> Void) -> Double {
    let group = DispatchGroup()
    let start = ContinuousClock.now
    for _ in 0..<threads {
        DispatchQueue.global().async(group: group) { body(iterations) }
    }
    group.wait()
    return (ContinuousClock.now - start).inMilliseconds * 1_000_000 / Double(iterations * threads)
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

for threads in [1, 2] {
    var results: [String: [Double]] = [:]
    func record(_ name: String, _ body: @escaping @Sendable (Int) -> Void) {
        results[name, default: []].append(measure(threads: threads, body))
    }
    for _ in 0..<rounds {
        let locked = Locked(0), pthread = PthreadLocked(0), bare = BareMutex(0), counting = CountingMutex(0)
        record("counter: HubSync.Locked") { n in for _ in 0..<n { locked.withLock { $0 &+= 1 } } }
        record("counter: pthread mutex") { n in for _ in 0..<n { pthread.withLock { $0 &+= 1 } } }
        record("counter: bare Mutex (TSan blind)") { n in for _ in 0..<n { bare.withLock { $0 &+= 1 } } }
        record("counter: Mutex + counting atomic") { n in for _ in 0..<n { counting.withLock { $0 &+= 1 } } }
        // A short critical section like the caches': a dictionary update.
        let lockedTable = Locked([Int: Int]()), pthreadTable = PthreadLocked([Int: Int]())
        let bareTable = BareMutex([Int: Int]()), countingTable = CountingMutex([Int: Int]())
        record("dictionary: HubSync.Locked") { n in for i in 0..<n { lockedTable.withLock { $0[i & 1023, default: 0] &+= 1 } } }
        record("dictionary: pthread mutex") { n in for i in 0..<n { pthreadTable.withLock { $0[i & 1023, default: 0] &+= 1 } } }
        record("dictionary: bare Mutex (TSan blind)") { n in for i in 0..<n { bareTable.withLock { $0[i & 1023, default: 0] &+= 1 } } }
        record("dictionary: Mutex + counting atomic") { n in
            for i in 0..<n { countingTable.withLock { $0[i & 1023, default: 0] &+= 1 } }
        }
    }
    print("== \(threads) thread\(threads == 1 ? "" : "s") on one lock, \(iterations) lock/unlock each, median of \(rounds)")
    for (name, values) in results.sorted(by: { $0.key < $1.key }) {
        print("  \(name + String(repeating: " ", count: max(1, 40 - name.count))) \((median(values) * 10).rounded() / 10) ns")
    }
}
