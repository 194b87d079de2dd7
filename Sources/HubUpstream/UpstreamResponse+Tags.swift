import HubPrimitives

extension UpstreamResponse {
    /// Most tags kept from one response; the rest are ignored (a response's tags are kept by
    /// every session and memo entry that used it).
    public static let maximumTags = 64
    /// Longest tag kept, in bytes; longer ones are ignored.
    public static let maximumTagBytes = 256

    /// The response's content tags: the values of `Surrogate-Key` (Fastly) and `Cache-Tag`
    /// (Cloudflare), split on spaces and commas, duplicates dropped, in order; at most
    /// ``maximumTags`` of at most ``maximumTagBytes`` bytes each. `POST /invalidate` names them.
    public var contentTags: [String] { Self.contentTags(in: headers) }

    /// ``contentTags`` of a header list (a stored response's).
    public static func contentTags(in headers: [(name: String, value: String)]) -> [String] {
        var tags: [String] = []
        for header in headers
        where header.name.asciiCaseInsensitiveEquals("surrogate-key") || header.name.asciiCaseInsensitiveEquals("cache-tag") {
            for part in header.value.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" }) {
                guard tags.count < maximumTags else { return tags }
                let tag = String(part)
                guard tag.utf8.count <= maximumTagBytes, !tags.contains(tag) else { continue }
                tags.append(tag)
            }
        }
        return tags
    }
}
