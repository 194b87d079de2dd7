import HubHTTP
import HubModel

/// A token bucket's settings; defined in HubHTTP beside the limiter that uses it.
public typealias RateLimit = HubHTTP.RateLimit

extension ServerSettings.Limits {
    /// Reads `server.json`'s `limits` object at `path` over these values (unknown keys are
    /// warnings, wrong types and ranges errors). `sseStreams` follows a lower `connections`
    /// when not given.
    package mutating func read(_ limits: JSONObject, reader: ConfigReader, at path: String) {
        reader.checkKeys(
            limits, at: path,
            known: ["requestLineBytes", "headerBytes", "headerCount", "bodyBytes", "jsonDepth", "connections",
                    "sseListenersPerSession", "sseStreams", "sessionsPerClient", "sseStreamsPerClient",
                    "actionsPerClient", "protectedSessionsPerClient", "clientIPv6Prefix", "patchHistoryBytes"])
        if let value = reader.int(limits, "patchHistoryBytes", at: path, range: 0...(1 << 40)) { patchHistoryBytes = value }
        if let value = reader.int(limits, "sseStreamsPerClient", at: path, range: 1...1_000_000) {
            sseStreamsPerClient = value
        }
        if let bucket = Self.readBucket(limits, "sessionsPerClient", reader: reader, at: path, over: sessionsPerClient) {
            sessionsPerClient = bucket
        }
        if let bucket = Self.readBucket(limits, "actionsPerClient", reader: reader, at: path, over: actionsPerClient) {
            actionsPerClient = bucket
        }
        if let value = reader.int(limits, "protectedSessionsPerClient", at: path, range: 1...100_000_000) {
            protectedSessionsPerClient = value
        }
        if let value = reader.int(limits, "clientIPv6Prefix", at: path, range: 1...128) { clientIPv6Prefix = value }
        if let value = reader.int(limits, "requestLineBytes", at: path, range: 64...1_048_576) { requestLineBytes = value }
        if let value = reader.int(limits, "headerBytes", at: path, range: 256...16_777_216) { headerBytes = value }
        if let value = reader.int(limits, "headerCount", at: path, range: 1...10_000) { headerCount = value }
        if let value = reader.int(limits, "bodyBytes", at: path, range: ServerSettings.Ranges.bytes) { bodyBytes = value }
        if let value = reader.int(limits, "jsonDepth", at: path, range: 1...1024) { jsonDepth = value }
        if let value = reader.int(limits, "connections", at: path, range: 1...1_000_000) { connections = value }
        if let value = reader.int(limits, "sseListenersPerSession", at: path, range: 1...1_000_000) {
            sseListenersPerSession = value
        }
        let given = reader.int(limits, "sseStreams", at: path, range: 1...1_000_000)
        if let given { sseStreams = given }
        if sseStreams > connections {
            if given != nil {
                reader.error("\(path).sseStreams", "must be at most limits.connections (\(connections))")
            } else {
                sseStreams = connections  // the default follows a lower connection cap
            }
        }
    }

    /// A token bucket (`{"perSecond": 20, "burst": 100}`) at `path.key`, over `current` (each
    /// field optional); `nil` when the key is absent or not an object.
    private static func readBucket(
        _ limits: JSONObject, _ key: String, reader: ConfigReader, at path: String, over current: RateLimit
    ) -> RateLimit? {
        let bucketPath = "\(path).\(key)"
        guard let bucket = reader.object(limits[key], at: bucketPath) else { return nil }
        reader.checkKeys(bucket, at: bucketPath, known: ["perSecond", "burst"])
        var limit = current
        if let value = reader.seconds(bucket, "perSecond", at: bucketPath, range: 0.001...1_000_000) { limit.perSecond = value }
        if let value = reader.int(bucket, "burst", at: bucketPath, range: 1...1_000_000) { limit.burst = value }
        return limit
    }
}
