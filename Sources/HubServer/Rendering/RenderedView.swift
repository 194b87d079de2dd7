import HubEngine
import HubHTTP
import HubSync

/// One view model's wire form: its ``Representation`` (JSON bytes, strong ETag, gzip made on
/// first use) and the `Server-Timing` header of memoized timings.
final class RenderedView: Sendable {
    let representation: Representation
    private let timingHeader = Locked<(timings: [OperationTiming], header: String)?>(nil)

    init(bytes: [UInt8]) {
        representation = Representation(bytes: bytes)
    }

    /// The JSON bytes.
    var bytes: [UInt8] { representation.bytes }
    /// The strong ETag of ``bytes``.
    var etag: String { representation.etag }

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
