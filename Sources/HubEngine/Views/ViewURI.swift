/// Helpers for view URIs such as `hub:home:section?tab=2#top`.
public enum ViewURI {
    /// The URI without `?query` and `#fragment`.
    public static func stripQueryAndFragment(_ uri: String) -> String {
        // Over the UTF-8 bytes: both delimiters are ASCII, and no grapheme breaking is needed.
        guard let end = uri.utf8.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) else { return uri }
        return String(uri[..<end])
    }

    /// The query parameters (between `?` and `#`), in order, percent-decoded; `+` stays a plus.
    /// A parameter whose escapes are invalid keeps its raw text.
    public static func queryItems(of uri: String) -> [(name: String, value: String)] {
        guard let questionMark = uri.firstIndex(of: "?") else { return [] }
        var query = uri[uri.index(after: questionMark)...]
        if let hash = query.firstIndex(of: "#") { query = query[..<hash] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            let value = parts.count > 1 ? String(parts[1]) : ""
            return (percentDecoded(name) ?? name, percentDecoded(value) ?? value)
        }
    }

    /// The `index`-th `:`-separated segment of the URI without its query (`{uri.N}`).
    public static func segment(_ index: Int, of uri: String) -> String? {
        let segments = stripQueryAndFragment(uri).split(separator: ":", omittingEmptySubsequences: false)
        return segments.indices.contains(index) ? String(segments[index]) : nil
    }

    /// Percent-decodes `text`; `nil` for invalid or truncated escapes and invalid UTF-8.
    public static func percentDecoded(_ text: String) -> String? {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
