/// The response head encoder in memory, for `make bench-server` (`HubServerBenchmarks`): no
/// socket. Not an API for serving: an app never needs it, so it is behind `@_spi(Benchmarks)`.
@_spi(Benchmarks)
public enum ResponseHeadBenchmark {
    /// Writes the head of a `200` response with `headers` and a body of `length` bytes `times`
    /// times into one buffer, as the connection writes every head into its loop's buffer (a
    /// generated request id, keep-alive, HTTP/1.1); returns the bytes written in all, so the
    /// work is not optimized away.
    public static func encode(_ headers: HTTPHeaders, length: Int, times: Int) -> Int {
        var written = 0
        let scratch = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 64 * 1024)
        defer { scratch.deallocate() }
        for index in 0..<times {
            written += ResponseEncoder.withHead(
                status: .ok, headers: headers, framing: .length(length), keepAlive: true, version: .http1_1,
                requestId: .generated(UInt64(index)), scratch: scratch
            ) { $0.count }
        }
        return written
    }
}
