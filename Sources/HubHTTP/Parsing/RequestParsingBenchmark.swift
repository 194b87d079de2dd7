/// The request parser in memory, for `make bench-server` (`HubServerBenchmarks`): no socket, no
/// responder. Not an API for serving: an app never needs it, so it is behind `@_spi(Benchmarks)`.
@_spi(Benchmarks)
public enum RequestParsingBenchmark {
    /// Feeds `bytes` (one or more whole requests) to a parser `times` times, as a connection
    /// feeds what it reads, and parses every complete request with its event loop's array for the
    /// field spans (``RequestParser/parse(spans:)``); returns how many were parsed, or
    /// nil when any of them failed. Each request's fields `reading` are looked up, as a
    /// responder reads them (and `keepAlive`, as the connection does).
    public static func parse(
        _ bytes: [UInt8], times: Int, limits: HTTPServerConfiguration.Limits = .init(), reading names: [String] = []
    ) -> Int? {
        var parser = RequestParser(limits: limits, remoteAddress: "127.0.0.1")
        var spans: [ReceivedFields.Span] = []
        var parsed = 0
        var found = 0
        for _ in 0..<times {
            parser.append(bytes)
            parsing: while true {
                switch try? parser.parse(spans: &spans) {
                case .request(let request)?:
                    parsed += 1
                    guard !names.isEmpty else { continue }
                    if request.keepAlive { found += 1 }
                    for name in names where request.headers[name] != nil { found += 1 }
                case .needMoreData?: break parsing  // all parsed, or a partial request waits for more bytes
                case .expectContinue?, .rejected?, nil: return nil
                }
            }
        }
        // `found` keeps the lookups from being optimized away; it never exceeds this.
        return found <= parsed * (names.count + 1) ? parsed : nil
    }

    /// The one whole request in `bytes` as a connection's parser makes it (its fields read in
    /// place from the bytes received), or nil when they are not exactly one valid request: a
    /// benchmark of the responders then sees the request a socket would give them.
    public static func request(_ bytes: [UInt8], limits: HTTPServerConfiguration.Limits = .init()) -> HTTPRequest? {
        var parser = RequestParser(limits: limits, remoteAddress: "127.0.0.1")
        parser.append(bytes)
        guard case .request(let request)? = try? parser.parse(), parser.bufferedByteCount == 0 else { return nil }
        return request
    }
}
