import HubEngine
import HubHTTP
import HubModel
import HubSync

/// Serialized forms of view models, keyed by instance: with the chain memo, thousands of
/// sessions share one view model, so its JSON, ETag and gzip are computed once.
final class RenderCache: Sendable {
    /// One view model's wire forms.
    final class Rendered: Sendable {
        let bytes: [UInt8]
        let etag: String
        private let gzipped = Locked<[UInt8]??>(nil)
        private let gzipLevel: Int
        private let timingHeader = Locked<(timings: [OperationTiming], header: String)?>(nil)

        init(bytes: [UInt8], gzipLevel: Int) {
            self.bytes = bytes
            self.etag = ETag.strong(for: bytes)
            self.gzipLevel = gzipLevel
        }

        /// The gzip encoding, computed on first use; `nil` when it would not be smaller.
        var gzip: [UInt8]? {
            if let cached = gzipped.withLock({ $0 }) { return cached }
            let compressed = Gzip.compress(bytes, level: gzipLevel).flatMap { $0.count < bytes.count ? $0 : nil }
            gzipped.withLock { $0 = .some(compressed) }
            return compressed
        }

        /// The `Server-Timing` header for `timings`, made by `make` and remembered for the last
        /// timings seen: a memoized chain answers every session with the same timings (the same
        /// array, so the comparison is one pointer check), and the header is then formatted once.
        func serverTiming(_ timings: [OperationTiming], make: ([OperationTiming]) -> String) -> String {
            if let cached = timingHeader.withLock({ $0 }), cached.timings == timings { return cached.header }
            let header = make(timings)
            timingHeader.withLock { $0 = (timings, header) }
            return header
        }
    }

    private struct State {
        /// Strong references keep identities unique while cached.
        var entries: [ObjectIdentifier: (model: ViewModel, rendered: Rendered, lastUse: UInt64)] = [:]
        var tick: UInt64 = 0
    }

    private let state = Locked(State())
    private let capacity: Int
    private let gzipLevel: Int

    init(capacity: Int = 512, gzipLevel: Int = 6) {
        self.capacity = capacity
        self.gzipLevel = gzipLevel
    }

    func rendered(_ model: ViewModel) -> Rendered {
        let key = ObjectIdentifier(model)
        if let hit = state.withLock({ state -> Rendered? in
            guard let entry = state.entries[key] else { return nil }
            state.tick += 1
            state.entries[key]!.lastUse = state.tick
            return entry.rendered
        }) {
            return hit
        }
        let rendered = Rendered(bytes: model.jsonBytes(capacityHint: 32 * 1024), gzipLevel: gzipLevel)
        state.withLock { state in
            state.tick += 1
            state.entries[key] = (model, rendered, state.tick)
            if state.entries.count > capacity {
                let victims = state.entries.sorted { $0.value.lastUse < $1.value.lastUse }.prefix(capacity / 4)
                for (victim, _) in victims { state.entries[victim] = nil }
            }
        }
        return rendered
    }
}
