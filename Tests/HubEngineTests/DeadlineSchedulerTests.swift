import HubModel
import Testing

@testable import HubEngine

/// The operation deadlines' one timer: actions run once due, in order, and a cancelled deadline
/// lets go of what its action holds at once (memory per held session).
@Suite("Deadline scheduler", .timeLimit(.minutes(1)))
struct DeadlineSchedulerTests {
    /// Something an action holds, to see when it is released.
    final class Held: Sendable {}

    @Test("deadlines run once each, in the order they fall due, whatever the order they were scheduled in")
    func runInOrder() async {
        let scheduler = DeadlineScheduler()
        let (fired, continuation) = AsyncStream.makeStream(of: Int.self)
        for milliseconds in [30, 10, 20] {
            _ = scheduler.schedule(after: .milliseconds(milliseconds)) { continuation.yield(milliseconds) }
        }
        var order: [Int] = []
        for await value in fired {
            order.append(value)
            if order.count == 3 { break }
        }
        #expect(order == [10, 20, 30])
        #expect(scheduler.pendingCount == 0)
        #expect(scheduler.heapCount == 0)
    }

    @Test("a cancelled deadline never runs, and its action and what it holds are released when it is cancelled")
    func cancelReleases() async {
        let scheduler = DeadlineScheduler()
        let (fired, continuation) = AsyncStream.makeStream(of: String.self)
        weak var released: Held?
        let ticket: DeadlineScheduler.Ticket
        do {
            let held = Held()
            released = held
            ticket = scheduler.schedule(after: .milliseconds(10)) { _ = held; continuation.yield("cancelled one") }
        }
        #expect(released != nil, "held while the deadline is pending")
        scheduler.cancel(ticket)
        #expect(released == nil, "released when cancelled, not when the deadline would have passed")
        #expect(scheduler.pendingCount == 0)
        scheduler.cancel(ticket)  // again: a no-op
        // A later deadline runs; the cancelled one, due before it, did not.
        _ = scheduler.schedule(after: .milliseconds(30)) { continuation.yield("later one") }
        for await value in fired {
            #expect(value == "later one")
            break
        }
    }

    @Test("cancelled deadlines do not pile up in the heap, and the timer still serves the next one")
    func compaction() async {
        let scheduler = DeadlineScheduler()
        let tickets = (0..<1_000).map { _ in scheduler.schedule(after: .seconds(3600)) {} }
        #expect(scheduler.pendingCount == 1_000)
        for ticket in tickets { scheduler.cancel(ticket) }
        #expect(scheduler.pendingCount == 0)
        #expect(scheduler.heapCount <= 64, "\(scheduler.heapCount) entries kept for 0 deadlines")
        let (fired, continuation) = AsyncStream.makeStream(of: Void.self)
        _ = scheduler.schedule(after: .milliseconds(5)) { continuation.yield() }
        for await _ in fired { break }
        #expect(scheduler.pendingCount == 0)
    }

    @Test("an operation that beats its deadline leaves none pending; one that does not fails with the timeout")
    func operationRuns() async {
        let scheduler = DeadlineScheduler()
        let quick = await OperationRunner.run(
            name: "quick", inline: false, deadline: .seconds(3600), deadlines: scheduler, builder: ViewModelBuilder()
        ) { builder in
            await Task.yield()
            builder.title = "done"
        }
        #expect(quick.error == nil)
        #expect(quick.builder.title == "done")
        #expect(scheduler.pendingCount == 0, "the deadline was cancelled when the operation won")

        let stuck = await OperationRunner.run(
            name: "stuck", inline: false, deadline: .milliseconds(20), deadlines: scheduler, builder: ViewModelBuilder()
        ) { builder in
            // Sleeps until cancelled: only the deadline ends it.
            try? await Task.sleep(for: .seconds(3600))
            builder.title = "too late"
        }
        let timeout = try? #require(stuck.error as? OperationTimeoutError)
        #expect(timeout?.operationName == "stuck")
        #expect(stuck.builder.title == nil, "a late operation's output is discarded")
        #expect(scheduler.pendingCount == 0)
    }
}
