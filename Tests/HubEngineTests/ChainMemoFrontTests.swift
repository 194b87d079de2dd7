@testable import HubEngine
import HubModel
import Testing

/// The chain memo's per-thread fronts of recent hits never answer differently from the memo.
@Suite("Chain memo fronts")
struct ChainMemoFrontTests {
    @Test("a hit read before its view model is stored is not pinned: the next read has the model")
    func modelLessEntryIsNotPinned() {
        let memo = ChainMemo(capacity: 8)
        memo.store(ChainMemo.Entry(snapshots: [], errors: [nil], timings: []), for: "k")
        #expect(memo.entry(for: "k")?.viewModel == nil)
        let model = ViewModelBuilder().build()
        memo.storeViewModel(model, for: "k")
        #expect(memo.entry(for: "k")?.viewModel === model, "the front kept the entry without its model")
        #expect(memo.entry(for: "k")?.viewModel === model, "a front hit answers the same model")
    }

    @Test("each key keeps its own entry through the front, past the front's size")
    func keysStayApart() {
        let memo = ChainMemo(capacity: 64)
        var models: [String: ViewModel] = [:]
        for index in 0..<(ChainMemo.frontEntries * 3) {
            let key = "k\(index)"
            memo.store(ChainMemo.Entry(snapshots: [], errors: [nil], timings: []), for: key)
            let model = ViewModelBuilder().build()
            memo.storeViewModel(model, for: key)
            models[key] = model
        }
        for _ in 0..<2 {
            for (key, model) in models { #expect(memo.entry(for: key)?.viewModel === model, "\(key)") }
        }
        #expect(memo.entry(for: "absent") == nil)
    }
}
