import HubEngine
import HubHTTP
import HubSync

/// One view model's wire forms: JSON bytes, strong ETag, gzip (made on first use) and the
/// `Server-Timing` header of memoized timings.
final class RenderedView: Sendable {
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
