import HubEngine
import HubHTTP
import HubPrimitives

/// The fields of a request that decide whether it is the same client request as a session's
/// baseline, read in one pass over its fields (``RequestBridge/isSameClientRequest(viewURI:from:user:components:as:)``):
/// the last `Hub-Client`, the last `Hub-Connectivity`, and the fields ``RetainedHeaders`` keeps,
/// compared with the baseline's as they go by. A held session's poll reads its fields here once
/// instead of once per question (the client, the connectivity, the server headers' last
/// occurrences, the kept fields).
///
/// The pass applies the per-value limits as it goes but not the per-request ones
/// (``RetainedHeaders/maximumHeaders`` and ``RetainedHeaders/maximumTotalBytes``), which depend
/// on the order the kept fields come in: when a request's kept fields reach either, ``compare(_:with:retained:)``
/// answers nil and the caller asks ``RetainedHeaders/keeps(_:sameAs:)``, which applies them in order.
struct SameClientFields {
    /// Whether the last `Hub-Client` is the baseline's (nil: the request sends none).
    private var clientSame: Bool?
    /// The connectivity the last `Hub-Connectivity` says (`online` when there is none).
    private var connectivity = Connectivity.online
    /// Bit i: `kept[i]` is a field of the request.
    private var matched: UInt64 = 0
    /// Every kept field other than a server header matched the baseline's.
    private var namedSame = true
    /// Kept fields other than the server headers, and their value bytes.
    private var count = 0
    private var totalBytes = 0
    /// The last occurrence of each server header (``RetainedHeaders/ServerHeader``).
    private var last: InlineArray<3, LastServerField> = [.absent, .absent, .absent]
    /// Bit i: a field of ``RetainedHeaders/bucketKeys`` `[i]` went by (answer-alike passes only).
    private var bucketKeysSeen: UInt64 = 0
    /// Every bucket key's field was the baseline's one field of its name or put the request in
    /// the same buckets.
    private var bucketsSame = true

    /// A server header's last occurrence, compared with the baseline's kept field of its name.
    private enum LastServerField {
        case absent
        /// Not kept (its value is longer than the header keeps).
        case dropped
        /// Kept, with `bytes` of value; `slot`: the baseline's field it equals, if any.
        case kept(bytes: Int, slot: Int?)
    }

    /// Whether `headers` are the same client request as `baseline` as far as their fields go (the
    /// client, the connectivity and the kept fields; the languages, locale and components are the
    /// caller's). nil when the request's kept fields reach a per-request limit.
    ///
    /// `answerAlike`: a field of a ``RetainedHeaders/bucketKeys`` name need not be the baseline's,
    /// only put the request in the same rollout buckets (one such field in each, ASCII): then the
    /// chain's operations and memo key are the baseline's, and so is the memo's answer to
    /// `GET /view?uri=` (many apps asking for one view). A held session compares client requests.
    static func compare(
        _ headers: HTTPHeaders, with baseline: ViewRequest, retained: RetainedHeaders, answerAlike: Bool = false
    ) -> Bool? {
        let kept = baseline.headers
        guard kept.count <= RetainedHeaders.maximumHeaders else { return false }
        var pass = SameClientFields()
        let buckets = answerAlike && !retained.bucketKeys.isEmpty
        kept.withUnsafeBufferPointer { kept in
            headers.forEachFieldBytes { name, value in
                if let server = RetainedHeaders.serverHeader(name) {
                    pass.read(server, name, value, baseline: baseline, kept: kept)
                } else if retained.isNamed(name), value.count <= RetainedHeaders.maximumValueBytes {
                    if buckets, let index = retained.bucketKeyIndex(name) {
                        pass.readBucketKey(retained.bucketKeys[index], index: index, value, kept: kept)
                    } else {
                        pass.readNamed(name, value, kept: kept)
                    }
                }
            }
        }
        return pass.verdict(baseline: baseline, keptCount: kept.count)
    }

    private mutating func read(
        _ server: RetainedHeaders.ServerHeader, _ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>,
        baseline: ViewRequest, kept: UnsafeBufferPointer<(name: String, value: String)>
    ) {
        switch server {
        case .client:
            // A view request keeps the last Hub-Client up to its limit (a longer one is none).
            if let client = baseline.client {
                clientSame = ASCII.withUTF8(of: client) { ASCII.bytesEqual($0, value) }
            } else {
                clientSame = value.count > RetainedHeaders.maximumClientBytes
            }
        case .connectivity:
            connectivity = Self.isOffline(value) ? .offline : .online
        case .toggle:
            break
        }
        guard value.count <= server.maximumBytes else {
            last[server.rawValue] = .dropped
            return
        }
        // The baseline keeps at most one field of a server header's name (its last).
        var slot = 0
        while slot < kept.count, !ASCII.withUTF8(of: kept[slot].name, { ASCII.caseInsensitiveEquals($0, name) }) {
            slot += 1
        }
        let same = slot < kept.count
            && ASCII.withUTF8(of: kept[slot].name) { ASCII.bytesEqual($0, name) }
            && ASCII.withUTF8(of: kept[slot].value) { ASCII.bytesEqual($0, value) }
        last[server.rawValue] = .kept(bytes: value.count, slot: same ? slot : nil)
    }

    /// A kept field other than a server header: it must be the first field of its name the
    /// baseline keeps that no earlier field matched (fields of one name keep their order).
    private mutating func readNamed(
        _ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>, kept: UnsafeBufferPointer<(name: String, value: String)>
    ) {
        count += 1
        totalBytes += value.count
        guard namedSame else { return }
        namedSame = RetainedHeaders.matchNext(name, value, in: kept, matched: &matched)
    }

    /// A field of a bucket key's name (answer-alike passes): it and the baseline's one field of
    /// that name must put the request in the same buckets. A second field of the name, or none
    /// in the baseline, is not alike (the toggles read the first).
    private mutating func readBucketKey(
        _ key: RetainedHeaders.BucketKey, index: Int, _ value: UnsafeBufferPointer<UInt8>,
        kept: UnsafeBufferPointer<(name: String, value: String)>
    ) {
        count += 1
        totalBytes += value.count
        guard bucketsSame else { return }
        guard bucketKeysSeen & (1 << index) == 0 else {
            bucketsSame = false
            return
        }
        bucketKeysSeen |= 1 << index
        var slot = 0
        while slot < kept.count,
            !ASCII.withUTF8(of: kept[slot].name, { name in key.name.withUnsafeBufferPointer { ASCII.caseInsensitiveEquals(name, $0) } })
        {
            slot += 1
        }
        guard slot < kept.count, matched & (1 << slot) == 0 else {
            bucketsSame = false
            return
        }
        matched |= 1 << slot
        bucketsSame = ASCII.withUTF8(of: kept[slot].value) { key.sameBuckets(value, $0) }
    }

    private func verdict(baseline: ViewRequest, keptCount: Int) -> Bool? {
        var matched = matched
        var count = count
        var totalBytes = totalBytes
        var serverSame = true
        for index in last.indices {
            guard case .kept(let bytes, let slot) = last[index] else { continue }
            count += 1
            totalBytes += bytes
            if let slot, matched & (1 << slot) == 0 { matched |= 1 << slot } else { serverSame = false }
        }
        guard count <= RetainedHeaders.maximumHeaders, totalBytes <= RetainedHeaders.maximumTotalBytes else { return nil }
        return (clientSame ?? (baseline.client == nil)) && connectivity == baseline.connectivity
            && namedSame && serverSame && bucketsSame && count == keptCount
    }

    /// `offline` in any case, with optional whitespace around it (``RequestBridge/connectivity(of:)``).
    static func isOffline(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
        var start = 0
        var end = value.count
        while start < end, value[start] == 0x20 || value[start] == 0x09 { start += 1 }
        while end > start, value[end - 1] == 0x20 || value[end - 1] == 0x09 { end -= 1 }
        return ASCII.caseInsensitiveEquals(UnsafeBufferPointer(rebasing: value[start..<end]), "offline")
    }
}
