import HubEngine
import HubPrimitives

extension ToggleDefinition {
    /// The value for a request: a `Hub-Toggle: name=value` override when allowed and valid,
    /// else the rollout bucket of the hashed key (stable per client), else the default.
    public func value(for request: ViewRequest, allowOverride: Bool) -> String {
        if allowOverride, let forced = Self.overrides(in: request)[name], values.contains(forced) {
            return forced
        }
        guard !rollout.isEmpty, let key, let keyValue = keyValue(key, in: request), !keyValue.isEmpty else {
            return defaultValue
        }
        let bucket = Int(Self.fnv1a(name + ":" + keyValue) % 100)
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

    /// `Hub-Toggle: a=x, b=y` (the header may repeat).
    static func overrides(in request: ViewRequest) -> [String: String] {
        var overrides: [String: String] = [:]
        for (name, value) in request.headers where name.lowercased() == "hub-toggle" {
            for pair in value.split(separator: ",") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { continue }
                overrides[String(parts[0].trimmingOWS())] = String(parts[1].trimmingOWS())
            }
        }
        return overrides
    }

    /// 64-bit FNV-1a: stable across runs and platforms (unlike `Hasher`).
    static func fnv1a(_ text: String) -> UInt64 {
        FNV1a.hash(text)
    }
}
