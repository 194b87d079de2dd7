import HubEngine
import HubHTTP
import HubMetrics
import HubSync

/// One view model's wire form: its ``Representation`` (JSON bytes, strong ETag, gzip made on
/// first use), the `Server-Timing` headers of the timings it was last sent with, and its
/// `event: view` for event streams (encoded on first use, then shared by every listener).
final class RenderedView: Sendable {
    let representation: Representation
    /// The last two timing lists seen, newest first, with their formatted headers: a memoized
    /// chain answers every session with the same list (the memo's array), and a held session
    /// answers every reload-free load with its last run's; the one who produced a memoized
    /// view model shares it with the memo hits, so two slots keep both formatted.
    private let timingHeaders = Locked<[(timings: [OperationTiming], header: String)]>([])
    /// The first timings' header, written once and read without a lock: the list nearly every
    /// response of this view carries (a held session's, or the memo's).
    private let firstTimingHeader = WriteOnceReference<TimingHeader>()

    private final class TimingHeader: Sendable {
        let timings: [OperationTiming]
        let header: String
        init(_ timings: [OperationTiming], _ header: String) {
            self.timings = timings
            self.header = header
        }
    }

    /// The `event: view` of this view, once made.
    private let viewEventOnce = WriteOnceReference<EncodedServerSentEvent>()
    /// Held while the event is made, so that it is made once: only listeners of this very view
    /// wait here, and only while the first one encodes it.
    private let viewEventMaking = Locked(())

    /// `hub_component_fallbacks_total` children of the components this rendering replaced, with
    /// how many each: every response that sends it adds them (render cache hits included).
    let fallbacks: [(counter: Counter, count: UInt64)]

    /// `bytes` with their keyed strong ETag from `tags` (``ViewTags``, never an unkeyed hash: a
    /// view's ETag is its patch events' base and target id).
    init(bytes: [UInt8], tags: ViewTags, fallbacks: [(counter: Counter, count: UInt64)] = []) {
        representation = Representation(bytes: bytes, etag: tags.etag(for: bytes))
        self.fallbacks = fallbacks
    }

    /// Counts one response that sends this rendering in `hub_component_fallbacks_total`.
    func countFallbacks() {
        for (counter, count) in fallbacks { counter.increment(by: count) }
    }

    /// The `event: view` that carries this view to event-stream listeners (its data the JSON
    /// bytes, its id the ETag without quotes), encoded once for every listener that sends it;
    /// `encoded` counts the one encoding (`hub_sse_events_encoded_total`).
    func viewEvent(encoded: Counter) -> EncodedServerSentEvent {
        if let event = viewEventOnce.load() { return event }
        return viewEventMaking.withLock { _ in
            if let event = viewEventOnce.load() { return event }
            let event = EncodedServerSentEvent(
                ServerSentEvent(event: "view", data: String(decoding: bytes, as: UTF8.self), id: Self.eventID(etag)))
            encoded.increment()
            return viewEventOnce.storeIfNil(event)
        }
    }

    /// The event id of a rendered view: its strong ETag without the quotes.
    static func eventID(_ etag: String) -> String {
        etag.count >= 2 && etag.hasPrefix("\"") && etag.hasSuffix("\"") ? String(etag.dropFirst().dropLast()) : etag
    }

    /// The JSON bytes.
    var bytes: [UInt8] { representation.bytes }
    /// The strong keyed ETag of ``bytes`` (``ViewTags``).
    var etag: String { representation.etag }

    /// The `Server-Timing` header for `timings`, made by `make` the first time these timings
    /// are sent with this view (the comparison is one pointer check for the same array).
    func serverTiming(_ timings: [OperationTiming], make: ([OperationTiming]) -> String) -> String {
        if let first = firstTimingHeader.load() {
            if Self.same(first.timings, timings) { return first.header }
        } else {
            // Two first callers may race with different lists: each answers with its own.
            let header = make(timings)
            _ = firstTimingHeader.storeIfNil(TimingHeader(timings, header))
            return header
        }
        let cached = timingHeaders.withLock { entries in entries.first { Self.same($0.timings, timings) }?.header }
        if let cached { return cached }
        let header = make(timings)
        timingHeaders.withLock { entries in
            entries.removeAll { $0.timings == timings }
            entries.insert((timings, header), at: 0)
            if entries.count > 2 { entries.removeLast() }
        }
        return header
    }

    /// Whether two timing lists are equal, read in place: `Array`'s `==` copies each element
    /// (a reference count per name) when the two are different arrays with equal contents, as
    /// a held session's list and the one this view was first sent with are.
    static func same(_ left: [OperationTiming], _ right: [OperationTiming]) -> Bool {
        left.withUnsafeBufferPointer { left in
            right.withUnsafeBufferPointer { right in
                guard left.count == right.count else { return false }
                if left.baseAddress == right.baseAddress { return true }
                for index in left.indices {
                    let (a, b) = (left.baseAddress! + index, right.baseAddress! + index)
                    guard a.pointee.duration == b.pointee.duration, a.pointee.failed == b.pointee.failed,
                        a.pointee.memoized == b.pointee.memoized, a.pointee.staleAgeSeconds == b.pointee.staleAgeSeconds,
                        a.pointee.name == b.pointee.name
                    else { return false }
                }
                return true
            }
        }
    }
}
