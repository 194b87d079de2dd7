import HubEngine
import HubHTTP
import HubOperations
import HubPrimitives

/// Which request headers a ``ViewRequest`` carries into the engine, and how much of them.
///
/// A session keeps its latest request for as long as it lives, so copying every header a
/// client sent (up to `limits.headerBytes` per request) let one client grow memory with
/// large headers and many sessions. The engine gets only what something can read:
/// - the `Hub-*` headers the server itself reads (``serverHeaders``: `Hub-Toggle`, `Hub-Client`,
///   `Hub-Connectivity`); not `Hub-Session` (the token names the session and is its bearer
///   secret, so a session does not keep a copy of it) nor `Hub-Components` (read once per
///   request into the view request, ``ClientComponents``); any other `Hub-*` header only when the
///   config or the app names it;
/// - the headers the config names: `{header.NAME}` placeholders and `forwardHeaders` of remote
///   operations and remote actions, and toggles keyed by `header:NAME`;
/// - the headers the embedding app declared with ``SwiftExtensions/retainRequestHeaders(_:)``.
///
/// Each kept value is at most ``maximumValueBytes`` (longer values are dropped, never cut:
/// a cut credential would be forwarded as garbage), at most ``maximumHeaders`` are kept, and
/// their values add up to at most ``maximumTotalBytes``. A server header keeps one value, its
/// last occurrence; `Hub-Client` longer than ``maximumClientBytes`` or `Hub-Toggle` longer than
/// ``maximumToggleBytes`` refuses the request (``checkServerHeaders(_:)``: 431 naming the field).
/// What a session keeps of them counts in its memory estimate (``ViewRequest/retainedBytes``).
struct RetainedHeaders: Sendable {
    /// Longest value kept.
    static let maximumValueBytes = 4096
    /// Most headers kept per request.
    static let maximumHeaders = 32
    /// Most value bytes kept per request.
    static let maximumTotalBytes = 16 * 1024

    /// Longest `Hub-Client` accepted (a client name and version).
    static let maximumClientBytes = 128
    /// Longest `Hub-Toggle` accepted (QA overrides `name=value, ...`).
    static let maximumToggleBytes = 1024
    /// Longest `Hub-Connectivity` kept (`offline` or `online`).
    static let maximumConnectivityBytes = 64

    /// The `Hub-*` headers the server reads (lowercased).
    static let serverHeaders: Set<String> = ["hub-toggle", "hub-client", "hub-connectivity"]

    /// Lowercased names kept besides ``serverHeaders``.
    let names: Set<String>
    /// The same names as bytes, for ``filter(_:)``: a received name is compared with each
    /// (lengths first) in place, so a field that is not kept makes no string.
    private let nameBytes: [[UInt8]]
    /// Bit n: a name of ``nameBytes`` is n bytes long (bit 63 for 63 or more).
    private let nameLengths: UInt64
    /// Kept names whose value only picks rollout buckets (``BucketKey``), and the toggles keyed
    /// on each: two requests whose values of such a name put them in the same buckets get the
    /// same view (``SameClientFields``, answering `GET /view?uri=` for many apps).
    let bucketKeys: [BucketKey]

    /// A kept header that nothing but toggles reads: no URL template names it, no operation or
    /// action forwards it, the embedding app did not ask for it, and the config has no Swift
    /// operation (which could read any kept field).
    struct BucketKey: Sendable {
        /// The name, lowercased, as bytes.
        let name: [UInt8]
        /// The toggles keyed on it (`header:NAME`).
        let toggles: [ToggleDefinition]

        /// Whether the keys `lhs` and `rhs` get the same value of every toggle (the rollout's;
        /// overrides are the same `Hub-Toggle` field in both, compared as a kept field). Only
        /// ASCII keys are compared: a view request keeps other bytes as repaired text, whose
        /// bucket these bytes would not tell.
        func sameBuckets(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
            guard lhs.allSatisfy({ $0 < 0x80 }), rhs.allSatisfy({ $0 < 0x80 }) else { return false }
            return toggles.allSatisfy { $0.rolloutValue(forKey: lhs) == $0.rolloutValue(forKey: rhs) }
        }
    }

    init(names: Set<String>, bucketKeys: [String: [ToggleDefinition]] = [:]) {
        // The W3C trace context crosses as this server's span (``RequestTrace``), never the client's.
        self.names = Set(names.map { $0.lowercased() }).subtracting([TraceContext.parentHeader, TraceContext.stateHeader])
        nameBytes = self.names.sorted().map { Array($0.utf8) }
        nameLengths = nameBytes.reduce(0) { $0 | 1 << UInt64(min($1.count, 63)) }
        // At most 64 (``SameClientFields`` notes them in a 64-bit mask), each a kept name.
        let kept = self.names
        self.bucketKeys = bucketKeys.sorted { $0.key < $1.key }.prefix(64).compactMap { name, toggles in
            let lowercased = name.lowercased()
            guard kept.contains(lowercased), !Self.serverHeaders.contains(lowercased), !toggles.isEmpty else { return nil }
            return BucketKey(name: Array(lowercased.utf8), toggles: toggles)
        }
    }

    /// The index in ``bucketKeys`` of a kept name whose value only picks buckets, if `name` is one.
    func bucketKeyIndex(_ name: UnsafeBufferPointer<UInt8>) -> Int? {
        bucketKeys.firstIndex { key in key.name.withUnsafeBufferPointer { ASCII.caseInsensitiveEquals(name, $0) } }
    }

    /// The names `configuration` reads, plus `extra`.
    init(configuration: LoadedConfiguration, extra: Set<String> = []) {
        var names = extra
        var swiftOperations = false
        func collect(_ template: URLTemplate) {
            for case .header(let name) in template.parts { names.insert(name) }
        }
        func collect(_ operations: [OperationDefinition]) {
            for operation in operations {
                switch operation.kind {
                case .remote(let remote):
                    collect(remote.url)
                    names.formUnion(remote.forwardHeaders)
                case .variant(_, let variants): variants.values.forEach(collect)
                case .swift: swiftOperations = true
                default: break
                }
            }
        }
        configuration.features.forEach { collect($0.operations) }
        for (_, action) in configuration.actions {
            if case .remote(let url, _, _, let forward, _) = action {
                collect(url)
                names.formUnion(forward)
            }
        }
        // What else reads a field (lowercased): a toggle's key read by nothing but toggles only
        // picks buckets.
        let read = Set(names.map { $0.lowercased() })
        var bucketKeys: [String: [ToggleDefinition]] = [:]
        for toggle in configuration.toggles.values.sorted(by: { $0.name < $1.name }) {
            guard case .header(let name)? = toggle.key else { continue }
            names.insert(name)
            if !swiftOperations, !read.contains(name.lowercased()) { bucketKeys[name.lowercased(), default: []].append(toggle) }
        }
        // The gateway's identity header names the user only as the verified user (`{user.sub}`,
        // `forwardIdentity`): a client's own value of it never crosses, not even beside a
        // bearer token (whose request never checks where that header came from).
        if let identity = configuration.settings.identity.headerName {
            names = names.filter { $0.lowercased() != identity.lowercased() }
        }
        self.init(names: names, bucketKeys: bucketKeys)
    }

    /// The headers of `request` the engine keeps, in the order received (a ``ViewRequest`` orders
    /// them by name). The trace context is not among them: the engine reads this server's span
    /// from the request's ``RequestTrace``, and the client's own `traceparent` and `tracestate`
    /// never cross.
    func filter(_ headers: HTTPHeaders) -> [(name: String, value: String)] {
        var kept: [(name: String, value: String)] = []
        // Names compared as bytes first: only a field kept by name becomes strings.
        forEachKept(headers) { name, value in
            // One allocation, at the first field kept (none when nothing is kept).
            if kept.isEmpty { kept.reserveCapacity(min(headers.count, Self.maximumHeaders)) }
            kept.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
            return true
        }
        return kept
    }

    /// The fingerprint of the fields a view request of `headers` keeps (those ``filter(_:)``
    /// returns), read in place; `answerAlike`: with the buckets a ``bucketKeys`` field picks in
    /// place of its value (the same for requests that differ only in which client of those
    /// buckets asks, and another for other buckets).
    func fingerprint(of headers: HTTPHeaders, answerAlike: Bool = false) -> KeptFieldsFingerprint {
        var fingerprint = KeptFieldsFingerprint()
        let buckets = answerAlike && !bucketKeys.isEmpty
        forEachKept(headers) { name, value in
            if buckets, let index = bucketKeyIndex(name) {
                for toggle in bucketKeys[index].toggles {
                    ASCII.withUTF8(of: toggle.rolloutValue(forKey: value)) { fingerprint.add(value: $0) }
                }
            } else {
                fingerprint.add(value: value)
            }
            return true
        }
        return fingerprint
    }

    /// Matches one received field against `kept` (at most 64 entries): the first entry of its
    /// name that no earlier field matched (`matched`, bit i for `kept[i]`; names in any case, so
    /// that a field of one name but another case out of its order differs) must be this very
    /// field, name and value byte for byte. Marks that entry in `matched` when it is.
    static func matchNext(
        _ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>,
        in kept: UnsafeBufferPointer<(name: String, value: String)>, matched: inout UInt64
    ) -> Bool {
        var slot = 0
        while slot < kept.count,
            matched & (1 << slot) != 0 || !ASCII.withUTF8(of: kept[slot].name, { ASCII.caseInsensitiveEquals($0, name) })
        {
            slot += 1
        }
        guard slot < kept.count,
            ASCII.withUTF8(of: kept[slot].name, { ASCII.bytesEqual($0, name) }),
            ASCII.withUTF8(of: kept[slot].value, { ASCII.bytesEqual($0, value) })
        else { return false }
        matched |= 1 << slot
        return true
    }

    /// Whether a view request of `headers` would keep the fields `kept` (a view request's
    /// ``ViewRequest/headers``), field for field (names and values byte for byte), read in place:
    /// no string is made. A view request orders its fields by name, so fields of different names
    /// may come in any order; fields of one name must come in `kept`'s order. A `kept` list with a
    /// field `filter` never keeps (a trace context field) compares unequal.
    func keeps(_ headers: HTTPHeaders, sameAs kept: [(name: String, value: String)]) -> Bool {
        guard kept.count <= Self.maximumHeaders else { return false }
        var matched: UInt64 = 0  // bit i: kept[i] is a field of `headers`
        var count = 0
        var same = true
        kept.withUnsafeBufferPointer { kept in
            forEachKept(headers) { name, value in
                count += 1
                same = Self.matchNext(name, value, in: kept, matched: &matched)
                return same
            }
        }
        return same && count == kept.count
    }

    /// Calls `body` with the name and value bytes of each field of `headers` that a view request
    /// keeps, in order, until it returns false: the one rule ``filter(_:)`` and
    /// ``keeps(_:sameAs:)`` share (by name, then within the value, count and total limits).
    private func forEachKept(
        _ headers: HTTPHeaders, _ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) -> Bool
    ) {
        // A server header keeps its last occurrence only: count them first (inline: no heap
        // allocation per request).
        var occurrences: InlineArray<3, Int> = [0, 0, 0]
        headers.forEachFieldBytes { name, _ in
            if let server = Self.serverHeader(name) { occurrences[server.rawValue] += 1 }
        }
        var count = 0
        var totalBytes = 0
        var going = true
        headers.forEachFieldBytes { name, value in
            guard going, count < Self.maximumHeaders else { return }
            if let server = Self.serverHeader(name) {
                occurrences[server.rawValue] -= 1
                guard occurrences[server.rawValue] == 0, value.count <= server.maximumBytes else { return }
            } else if !isNamed(name) {
                return
            }
            guard value.count <= Self.maximumValueBytes, totalBytes + value.count <= Self.maximumTotalBytes else { return }
            count += 1
            totalBytes += value.count
            going = body(name, value)
        }
    }

    /// Refuses a request whose `Hub-Client` or `Hub-Toggle` (any occurrence) is longer than the
    /// server keeps: `431 headers_too_large` naming the field (RFC 6585 section 5), rather than a
    /// value cut or dropped without a word (a cut client name would match other kill switches).
    static func checkServerHeaders(_ headers: HTTPHeaders) throws(HTTPError) {
        var refused: ServerHeader?
        headers.forEachFieldBytes { name, value in
            guard refused == nil, let server = serverHeader(name), server != .connectivity, value.count > server.maximumBytes
            else { return }
            refused = server
        }
        guard let refused else { return }
        throw HTTPError(
            .requestHeaderFieldsTooLarge, code: "headers_too_large",
            detail: "\(refused.fieldName) is longer than \(refused.maximumBytes) bytes")
    }

    /// The headers the server itself reads.
    enum ServerHeader: Int {
        case toggle, client, connectivity

        /// Longest value kept.
        var maximumBytes: Int {
            switch self {
            case .toggle: return RetainedHeaders.maximumToggleBytes
            case .client: return RetainedHeaders.maximumClientBytes
            case .connectivity: return RetainedHeaders.maximumConnectivityBytes
            }
        }

        var fieldName: String {
            switch self {
            case .toggle: return "Hub-Toggle"
            case .client: return "Hub-Client"
            case .connectivity: return "Hub-Connectivity"
            }
        }
    }

    /// Which server header `name` is, ASCII case-insensitive (compared only when the length can match).
    static func serverHeader(_ name: UnsafeBufferPointer<UInt8>) -> ServerHeader? {
        switch name.count {
        case 10:
            if ASCII.caseInsensitiveEquals(name, "hub-toggle") { return .toggle }
            return ASCII.caseInsensitiveEquals(name, "hub-client") ? .client : nil
        case 16: return ASCII.caseInsensitiveEquals(name, "hub-connectivity") ? .connectivity : nil
        default: return nil
        }
    }

    /// Whether `name` is one of ``names`` (ASCII case-insensitive).
    func isNamed(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        // Most fields a request sends have a length no kept name has: one bit test.
        guard name.count >= 64 || nameLengths & (1 << UInt64(name.count)) != 0 else { return false }
        for wanted in nameBytes where wanted.count == name.count {
            if wanted.withUnsafeBufferPointer({ ASCII.caseInsensitiveEquals(name, $0) }) { return true }
        }
        return false
    }
}
