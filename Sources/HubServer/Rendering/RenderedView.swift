import HubEngine
import HubHTTP
import HubSync

/// One view model's wire form: its ``Representation`` (JSON bytes, strong ETag, gzip made on
/// first use) and the `Server-Timing` headers of the timings it was last sent with.
final class RenderedView: Sendable {
    let representation: Representation
    /// The last two timing lists seen, newest first, with their formatted headers: a memoized
    /// chain answers every session with the same list (the memo's array), and a held session
    /// answers every reload-free load with its last run's; the one who produced a memoized
    /// view model shares it with the memo hits, so two slots keep both formatted.
    private let timingHeaders = Locked<[(timings: [OperationTiming], header: String)]>([])

    init(bytes: [UInt8]) {
        representation = Representation(bytes: bytes)
    }

    /// The JSON bytes.
    var bytes: [UInt8] { representation.bytes }
    /// The strong ETag of ``bytes``.
    var etag: String { representation.etag }

    /// The `Server-Timing` header for `timings`, made by `make` the first time these timings
    /// are sent with this view (the comparison is one pointer check for the same array).
    func serverTiming(_ timings: [OperationTiming], make: ([OperationTiming]) -> String) -> String {
        let cached = timingHeaders.withLock { entries in entries.first { $0.timings == timings }?.header }
        if let cached { return cached }
        let header = make(timings)
        timingHeaders.withLock { entries in
            entries.removeAll { $0.timings == timings }
            entries.insert((timings, header), at: 0)
            if entries.count > 2 { entries.removeLast() }
        }
        return header
    }
}
