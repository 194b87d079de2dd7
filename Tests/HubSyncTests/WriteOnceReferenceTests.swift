import Dispatch
import HubSync
import Testing

/// `WriteOnceReference`: the first instance stored is the one every caller gets, from any
/// thread, and the reference lets it go when it ends.
@Suite struct WriteOnceReferenceTests {
    final class Box: Sendable {
        let value: Int
        init(_ value: Int) { self.value = value }
    }

    final class Holder: Sendable {
        let reference = WriteOnceReference<Box>()
    }

    @Test func emptyUntilStoredThenTheFirstStoredWins() {
        let holder = Holder()
        #expect(holder.reference.load() == nil)
        let first = Box(1)
        #expect(holder.reference.storeIfNil(first) === first)
        #expect(holder.reference.load() === first)
        // A second store returns the first instance and keeps it.
        #expect(holder.reference.storeIfNil(Box(2)) === first)
        #expect(holder.reference.load()?.value == 1)
    }

    @Test func racingStoresAllGetOneInstance() {
        let holder = Holder()
        let results = Locked<[ObjectIdentifier]>([])
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            let kept = holder.reference.load() ?? holder.reference.storeIfNil(Box(index))
            results.withLock { $0.append(ObjectIdentifier(kept)) }
        }
        let kept = results.withLock { $0 }
        #expect(kept.count == 64)
        #expect(Set(kept).count == 1, "every caller got the instance stored first")
        #expect(kept.first == holder.reference.load().map(ObjectIdentifier.init))
    }

    @Test func releasesTheStoredInstanceAndDropsTheLosers() {
        weak var kept: Box?
        weak var loser: Box?
        do {
            let holder = Holder()
            do {
                let first = Box(1), second = Box(2)
                kept = first
                loser = second
                _ = holder.reference.storeIfNil(first)
                _ = holder.reference.storeIfNil(second)
            }
            #expect(loser == nil, "the instance that lost the store is not retained")
            #expect(kept != nil, "the reference holds what it stored")
        }
        #expect(kept == nil, "released with the reference")
    }
}
