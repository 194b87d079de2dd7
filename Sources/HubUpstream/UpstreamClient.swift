/// Sends requests to upstream services. ``CurlUpstreamClient`` is the production implementation;
/// tests of callers can supply their own.
public protocol UpstreamClient: Sendable {
    /// Sends `request` and returns the upstream's answer, whatever its status.
    ///
    /// Throws ``UpstreamError`` for transport failures (timeout, refused, reset, too large,
    /// invalid URL, missing file) and `CancellationError` when the calling task is cancelled.
    func send(_ request: UpstreamRequest) async throws -> UpstreamResponse
}

extension UpstreamClient {
    /// Sends `request` and returns the response only if it is a 2xx with a non-empty body.
    ///
    /// Throws ``UpstreamError/httpStatus(_:body:)`` (with a body snippet) for a non-2xx status and
    /// ``UpstreamError/emptyBody`` for an empty 2xx body, in addition to what ``send(_:)`` throws.
    public func sendExpectingSuccess(_ request: UpstreamRequest) async throws -> UpstreamResponse {
        let response = try await send(request)
        guard response.isSuccess else {
            throw UpstreamError.httpStatus(response.status, body: response.body)
        }
        guard !response.body.isEmpty else { throw UpstreamError.emptyBody }
        return response
    }

    /// The body of a successful, non-empty response, for the caller's JSON parser.
    ///
    /// Callers that fail to parse it should throw ``UpstreamError/invalidJSON(detail:)``; the
    /// quick check here rejects bodies whose first non-blank byte cannot start a JSON text.
    public func fetchJSONBytes(_ request: UpstreamRequest) async throws -> [UInt8] {
        let body = try await sendExpectingSuccess(request).body
        try UpstreamResponse.checkLooksLikeJSON(body)
        return body
    }
}

extension UpstreamResponse {
    /// Throws ``UpstreamError/invalidJSON(detail:)`` unless the first non-whitespace byte of `body`
    /// can start a JSON value (`{`, `[`, `"`, a digit, `-`, `t`, `f`, `n`), and ``UpstreamError/emptyBody``
    /// for a blank body. A cheap pre-check; full validation is the parser's job.
    public static func checkLooksLikeJSON(_ body: [UInt8]) throws {
        var index = 0
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }  // UTF-8 BOM
        while index < body.count, [0x20, 0x09, 0x0A, 0x0D].contains(body[index]) { index += 1 }
        guard index < body.count else { throw UpstreamError.emptyBody }
        switch body[index] {
        case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""), UInt8(ascii: "-"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            return
        default:
            throw UpstreamError.invalidJSON(detail: "unexpected first byte \(body[index])")
        }
    }
}
