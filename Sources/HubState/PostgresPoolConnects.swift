import Synchronization

/// How many times the connections of one pool (``PostgresStateStore``'s) have connected. A
/// connection whose attempt failed during an outage waits out its retry delay only while this
/// count stands still: once another connection of the pool has connected, the database is back,
/// and the failed one tries again on its next call instead of failing calls for the rest of its
/// delay. A database that stays down gets one attempt per connection per delay, as before.
final class PostgresPoolConnects: Sendable {
    private let connects = Atomic<Int>(0)

    /// The connects so far.
    var count: Int { connects.load(ordering: .acquiring) }

    /// One more connection of the pool connected.
    func noteConnect() {
        connects.add(1, ordering: .releasing)
    }
}
