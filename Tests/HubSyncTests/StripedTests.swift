import HubSync
import Testing

/// `Striped` as a read-mostly value (`value`, `setAll`): every thread reads its own stripe's
/// copy, and once `setAll` returns every thread reads the new value.
@Suite struct StripedTests {
    @Test("every thread reads the value set for all, before and after a change")
    func setAllReachesEveryStripe() async {
        let shared = Striped(count: 8) { "first" }
        #expect(shared.value == "first")
        // Many threads (and so several stripes) read the first value.
        let before = await Self.reads(of: shared, threads: 16)
        #expect(before.allSatisfy { $0 == "first" } && before.count == 16)
        shared.setAll("second")
        let after = await Self.reads(of: shared, threads: 16)
        #expect(after.allSatisfy { $0 == "second" } && after.count == 16)
        #expect(shared.value == "second")
    }

    @Test("readers during changes only ever see a value that was set")
    func readersSeeOnlySetValues() async {
        let shared = Striped(count: 4) { 0 }
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for round in 1...2_000 { shared.setAll(round) }
                return true
            }
            for _ in 0..<4 {
                group.addTask {
                    var last = 0
                    for _ in 0..<2_000 {
                        let read = shared.value
                        // The loop never suspends, so it stays on one thread and one stripe,
                        // whose value only moves forward: rounds are set in order.
                        guard read >= last, read <= 2_000 else { return false }
                        last = read
                    }
                    return true
                }
            }
            for await consistent in group { #expect(consistent) }
        }
        #expect(shared.value == 2_000)
    }

    /// `shared.value` read on `threads` tasks at once.
    static func reads(of shared: Striped<String>, threads: Int) async -> [String] {
        await withTaskGroup(of: String.self) { group in
            for _ in 0..<threads { group.addTask { shared.value } }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }
}
