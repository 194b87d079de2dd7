import HubSync

/// What recent values of one request header parse to, kept by their text: a client sends the
/// same `Hub-Components` and `Accept-Language` on every request, and parsing one (split, trim,
/// weigh, sort, join) cost 1-2 us per request. Per thread (``RecentHits``): at most ``capacity``
/// values per stripe, and only headers of at most ``maximumHeaderBytes`` (a longer one is parsed
/// each time), so what is kept stays small whatever clients send.
///
/// `parse` must be a pure function of the header's text: a kept value is returned for as long
/// as it is kept.
final class ParsedHeaders<Parsed: Sendable>: Sendable {
    /// Values kept per stripe.
    static var capacity: Int { 16 }
    /// Longest header text kept.
    static var maximumHeaderBytes: Int { 1024 }

    private let recent = RecentHits<String, Parsed>(capacity: ParsedHeaders.capacity)
    private let parse: @Sendable (String) -> Parsed

    init(_ parse: @escaping @Sendable (String) -> Parsed) {
        self.parse = parse
    }

    /// What `header` parses to: a recent one, or parsed now (and kept when short enough).
    func parsed(_ header: String) -> Parsed {
        guard header.utf8.count <= Self.maximumHeaderBytes else { return parse(header) }
        if let parsed = recent.value(for: header) { return parsed }
        let parsed = parse(header)
        recent.remember(parsed, for: header)
        return parsed
    }
}
