import HubModel

extension FeatureReader {
    /// The longest `defaultMaxAgeSeconds`: a week, as the stale windows.
    package static let maximumDefaultMaxAgeSeconds = 604_800

    /// A remote operation's `defaultMaxAgeSeconds`: how long a `200` from its upstream that states
    /// no lifetime (no `max-age`, `s-maxage` or `Expires`) stays fresh. Nil when absent or 0 (such
    /// a response is then never fresh). Only for a cached `GET`: a config error on another method,
    /// or beside `forwardHeaders` (whose requests bypass the cache).
    package func readDefaultMaxAge(_ object: JSONObject, method: String, forwardsHeaders: Bool, at path: String) -> Int? {
        guard let seconds = reader.int(object, "defaultMaxAgeSeconds", at: path, range: 0...Self.maximumDefaultMaxAgeSeconds)
        else { return nil }
        if method != "GET" {
            reader.error("\(path).defaultMaxAgeSeconds", "is only for GET requests (only they are cached)")
            return nil
        }
        if forwardsHeaders {
            reader.error(
                "\(path).defaultMaxAgeSeconds",
                "a forwardHeaders operation's requests bypass the cache, so no lifetime is given to their responses")
            return nil
        }
        return seconds > 0 ? seconds : nil
    }
}
