import HubEngine
import HubPrimitives

extension ToggleDefinition {
    /// The value for a request: a `Hub-Toggle: name=value` override when allowed and valid,
    /// else the rollout bucket of the hashed key (stable per client), else the default.
    ///
    /// Runs for every variant of every chain an open prepares: it reads the request in place and
    /// makes no string (no overrides table, no `name:key` text to hash).
    public func value(for request: ViewRequest, allowOverride: Bool) -> String {
        if allowOverride, let forced = Self.override(of: name, in: request), values.contains(forced) {
            return forced
        }
        guard !rollout.isEmpty, let key, let keyValue = keyValue(key, in: request) else { return defaultValue }
        return ASCII.withUTF8(of: keyValue) { rolloutValue(forKey: $0) }
    }

    /// The value the rollout gives the client whose key (the header or query value named by
    /// ``key``) is `keyBytes`, UTF-8: the bucket of `name:key`, or the default for an empty key
    /// or a bucket past the rollout's percentages. No override is looked at.
    public func rolloutValue(forKey keyBytes: UnsafeBufferPointer<UInt8>) -> String {
        guard !rollout.isEmpty, !keyBytes.isEmpty else { return defaultValue }
        let bucket = Int(Self.bucketHash(name: name, key: keyBytes) % 100)
        var cumulative = 0
        for (value, percent) in rollout {
            cumulative += percent
            if bucket < cumulative { return value }
        }
        return defaultValue
    }

    private func keyValue(_ key: Key, in request: ViewRequest) -> String? {
        switch key {
        case .header(let header): return request.header(header)
        case .query(let parameter): return request.queryValue(parameter)
        }
    }

    /// The value `Hub-Toggle` sets for toggle `name` (`Hub-Toggle: a=x, b=y`; the header may
    /// repeat, and a later assignment of one name wins), or `nil` when none does.
    static func override(of name: String, in request: ViewRequest) -> String? {
        var forced: Substring?
        for (field, value) in request.headers where field.asciiCaseInsensitiveEquals("hub-toggle") {
            for pair in value.split(separator: ",") {
                // `name=value`, both sides present (`=x` and `x=` assign nothing), trimmed.
                guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else { continue }
                let rest = pair[pair.index(after: equals)...]
                guard !rest.isEmpty, pair[..<equals].trimmingOWS() == name else { continue }
                forced = rest.trimmingOWS()
            }
        }
        return forced.map(String.init)
    }

    /// The rollout hash of a client: 64-bit FNV-1a of `name:key`'s UTF-8 bytes, hashed in place.
    /// Stable across runs, processes and releases (unlike `Hasher`): a client keeps its bucket.
    static func bucketHash(name: String, key: UnsafeBufferPointer<UInt8>) -> UInt64 {
        FNV1a.hash(key, continuing: FNV1a.hash(":", continuing: FNV1a.hash(name)))
    }
}
