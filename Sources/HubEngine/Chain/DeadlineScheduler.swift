import Dispatch
import HubSync

/// The operation deadlines of one engine, on one dispatch timer armed for the earliest of them.
///
/// An operation that does not complete synchronously races its deadline (``OperationRunner``).
/// Most win, so most deadlines are cancelled long before they are due: cancelling one here drops
/// its action (and what the action holds: the run's continuation, its work task, its input) at
/// once. What stays until the deadline would have passed is a heap entry of 16 bytes, and
/// cancelled entries are compacted away once they outnumber the live ones. (A task sleeping until
/// the deadline, or a timer per run, keeps its task or timer allocated until then even when
/// cancelled: about 900 bytes per run of a held session for the deadline's length.)
///
/// A deadline starts when it is scheduled, whatever the cooperative pool is doing; its action
/// runs on the scheduler's own queue, so a pool busy with other work does not delay it.
final class DeadlineScheduler: Sendable {
    /// What ``cancel(_:)`` takes: one scheduled deadline.
    struct Ticket: Sendable, Equatable {
        fileprivate let id: UInt64
    }

    /// An action run when its deadline passes (a struct: ``Locked`` never holds a bare function).
    private struct Action {
        let run: @Sendable () -> Void
    }

    private struct Entry {
        /// `DispatchTime.uptimeNanoseconds` of the deadline.
        let due: UInt64
        let id: UInt64
    }

    private struct State {
        /// A binary min-heap by `due` (ties by `id`, the order of scheduling); may hold entries
        /// already cancelled (those without an action).
        var heap: [Entry] = []
        var actions: [UInt64: Action] = [:]
        var nextID: UInt64 = 0
        /// Where the timer is armed for; `nil` while nothing is due.
        var armedFor: UInt64?
        /// Made on the first deadline (an engine whose operations all complete inline has none).
        var timer: (any DispatchSourceTimer)?
    }

    private let state = Locked(State())
    private let queue = DispatchQueue(label: "hub.engine.deadlines")
    /// How late the timer may fire, so the system can coalesce its wake-ups.
    private static let leeway = DispatchTimeInterval.milliseconds(1)

    deinit {
        state.withLock { $0.timer?.cancel() }
    }

    /// Deadlines scheduled and neither run nor cancelled.
    var pendingCount: Int { state.withLock { $0.actions.count } }

    /// Entries the heap holds, cancelled ones included (at most about twice ``pendingCount``).
    var heapCount: Int { state.withLock { $0.heap.count } }

    /// Runs `action` on the scheduler's queue once `delay` has passed, unless it is cancelled first.
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> Ticket {
        let due = Self.uptime(after: delay)
        return state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.actions[id] = Action(run: action)
            Self.push(Entry(due: due, id: id), into: &state.heap)
            if state.armedFor.map({ due < $0 }) ?? true { arm(&state, for: due) }
            return Ticket(id: id)
        }
    }

    /// Drops the deadline's action if it has not run; a no-op for one that ran or was cancelled.
    func cancel(_ ticket: Ticket) {
        let dropped = state.withLock { state -> Action? in
            guard let action = state.actions.removeValue(forKey: ticket.id) else { return nil }
            if state.heap.count > 2 * state.actions.count + 64 { Self.compact(&state) }
            return action
        }
        _ = dropped  // released here, outside the lock
    }

    /// The timer's handler: runs what is due and arms the timer for what is next.
    private func fire() {
        let now = DispatchTime.now().uptimeNanoseconds
        let due = state.withLock { state -> [Action] in
            var due: [Action] = []
            while let first = state.heap.first, first.due <= now || state.actions[first.id] == nil {
                Self.popFirst(from: &state.heap)
                if first.due <= now, let action = state.actions.removeValue(forKey: first.id) { due.append(action) }
            }
            state.armedFor = nil
            if let next = state.heap.first { arm(&state, for: next.due) }
            return due
        }
        for action in due { action.run() }
    }

    /// Arms the timer (made and started on first use) for `due`.
    private func arm(_ state: inout State, for due: UInt64) {
        state.armedFor = due
        let deadline = DispatchTime(uptimeNanoseconds: due)
        if let timer = state.timer {
            timer.schedule(deadline: deadline, repeating: .never, leeway: Self.leeway)
            return
        }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.setEventHandler { [weak self] in self?.fire() }
        timer.schedule(deadline: deadline, repeating: .never, leeway: Self.leeway)
        timer.activate()
        state.timer = timer
    }

    /// `DispatchTime.uptimeNanoseconds` `delay` from now (at most about 31 years ahead).
    private static func uptime(after delay: Duration) -> UInt64 {
        let (seconds, attoseconds) = delay.components
        let nanoseconds: UInt64 = seconds < 0 ? 0
            : UInt64(min(seconds, 1 << 30)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
        return DispatchTime.now().uptimeNanoseconds + nanoseconds
    }

    // MARK: - The heap

    private static func precedes(_ a: Entry, _ b: Entry) -> Bool {
        a.due != b.due ? a.due < b.due : a.id < b.id
    }

    private static func push(_ entry: Entry, into heap: inout [Entry]) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private static func popFirst(from heap: inout [Entry]) {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(&heap, from: 0)
    }

    private static func siftDown(_ heap: inout [Entry], from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            let right = left + 1
            let child = right < heap.count && precedes(heap[right], heap[left]) ? right : left
            guard precedes(heap[child], heap[parent]) else { return }
            heap.swapAt(child, parent)
            parent = child
        }
    }

    /// Drops the cancelled entries and orders the rest again (the timer stays armed: firing
    /// early for an entry gone is harmless).
    private static func compact(_ state: inout State) {
        var live = state.heap.filter { state.actions[$0.id] != nil }
        for index in stride(from: live.count / 2 - 1, through: 0, by: -1) { siftDown(&live, from: index) }
        state.heap = live
    }
}
