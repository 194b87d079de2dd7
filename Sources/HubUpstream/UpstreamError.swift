/// Why an upstream fetch failed.
///
/// A struct around a private enum, so cases can be added without breaking callers. ``kind``
/// is the stable, low-cardinality classification (for metrics and for choosing 502 vs 504);
/// ``description`` is short and safe to show to clients: it never contains curl's internal
/// messages, file paths or upstream bodies. ``bodySnippet`` carries at most
/// ``UpstreamError/snippetLimit`` bytes of a failed upstream body for logs.
public struct UpstreamError: Error, Sendable, CustomStringConvertible {
    /// The classification of an upstream failure.
    public enum Kind: Sendable, Hashable {
        /// The total or connect time limit passed.
        case timeout
        /// The connection was refused or could not be established.
        case connectFailed
        /// The connection broke (reset, closed mid-body, nothing received).
        case connectionReset
        /// The body exceeded `maxResponseBytes`; the transfer was aborted.
        case tooLarge
        /// The upstream answered with a non-2xx status.
        case httpStatus(Int)
        /// The body is not valid JSON.
        case invalidJSON
        /// The upstream answered 2xx with an empty body.
        case emptyBody
        /// The URL is malformed or uses a protocol other than http, https or file.
        case invalidURL
        /// A `file://` URL names a file that cannot be read.
        case fileNotFound
        /// Anything else (TLS, DNS, internal curl failures).
        case other

        /// A stable label for metrics and logs (`timeout`, `http_status`, ...).
        public var label: String {
            switch self {
            case .timeout: "timeout"
            case .connectFailed: "connect_failed"
            case .connectionReset: "connection_reset"
            case .tooLarge: "too_large"
            case .httpStatus: "http_status"
            case .invalidJSON: "invalid_json"
            case .emptyBody: "empty_body"
            case .invalidURL: "invalid_url"
            case .fileNotFound: "file_not_found"
            case .other: "other"
            }
        }
    }

    private enum Storage: Sendable {
        case timeout
        case connectFailed
        case connectionReset
        case tooLarge(limit: Int)
        case httpStatus(Int, snippet: String?)
        case invalidJSON(detail: String?)
        case emptyBody
        case invalidURL
        case fileNotFound
        case other(detail: String?)
    }

    /// The most bytes of an upstream body kept in ``bodySnippet``.
    public static let snippetLimit = 512

    private let storage: Storage

    private init(_ storage: Storage) { self.storage = storage }

    /// The total or connect time limit passed.
    public static var timeout: UpstreamError { UpstreamError(.timeout) }
    /// The connection was refused or could not be established.
    public static var connectFailed: UpstreamError { UpstreamError(.connectFailed) }
    /// The connection broke before the whole response arrived.
    public static var connectionReset: UpstreamError { UpstreamError(.connectionReset) }
    /// The body passed `limit` bytes and the transfer was aborted.
    public static func tooLarge(limit: Int) -> UpstreamError { UpstreamError(.tooLarge(limit: limit)) }
    /// The upstream answered `status`; `body` is kept as a snippet of at most ``snippetLimit`` bytes.
    public static func httpStatus(_ status: Int, body: [UInt8] = []) -> UpstreamError {
        UpstreamError(.httpStatus(status, snippet: snippet(of: body)))
    }
    /// The body is not valid JSON; `detail` (for logs, e.g. the parser's message) stays out of
    /// ``description``.
    public static func invalidJSON(detail: String? = nil) -> UpstreamError {
        UpstreamError(.invalidJSON(detail: detail))
    }
    /// The upstream answered 2xx with an empty body.
    public static var emptyBody: UpstreamError { UpstreamError(.emptyBody) }
    /// The URL is malformed or its protocol is not allowed.
    public static var invalidURL: UpstreamError { UpstreamError(.invalidURL) }
    /// A `file://` URL could not be read.
    public static var fileNotFound: UpstreamError { UpstreamError(.fileNotFound) }
    /// Any other failure; `detail` is for logs only.
    public static func other(_ detail: String? = nil) -> UpstreamError { UpstreamError(.other(detail: detail)) }

    /// The classification of this failure.
    public var kind: Kind {
        switch storage {
        case .timeout: .timeout
        case .connectFailed: .connectFailed
        case .connectionReset: .connectionReset
        case .tooLarge: .tooLarge
        case .httpStatus(let status, _): .httpStatus(status)
        case .invalidJSON: .invalidJSON
        case .emptyBody: .emptyBody
        case .invalidURL: .invalidURL
        case .fileNotFound: .fileNotFound
        case .other: .other
        }
    }

    /// True for a timeout: the server answers 504 for these and 502 for every other kind.
    public var isTimeout: Bool { kind == .timeout }

    /// Up to ``snippetLimit`` bytes of the upstream body of an ``Kind/httpStatus(_:)`` failure
    /// (invalid UTF-8 repaired), for logs; nil otherwise.
    public var bodySnippet: String? {
        if case .httpStatus(_, let snippet) = storage { return snippet }
        return nil
    }

    /// Internal detail for logs (never shown to clients): a parser message or a curl error name.
    public var logDetail: String? {
        switch storage {
        case .invalidJSON(let detail), .other(let detail): detail
        case .tooLarge(let limit): "limit \(limit) bytes"
        default: nil
        }
    }

    /// A short description safe to show to clients.
    public var description: String {
        switch storage {
        case .timeout: "upstream timed out"
        case .connectFailed: "upstream connection failed"
        case .connectionReset: "upstream connection reset"
        case .tooLarge: "upstream response too large"
        case .httpStatus(let status, _): "upstream answered HTTP \(status)"
        case .invalidJSON: "upstream response is not valid JSON"
        case .emptyBody: "upstream response is empty"
        case .invalidURL: "invalid upstream URL"
        case .fileNotFound: "upstream file not found"
        case .other: "upstream request failed"
        }
    }

    private static func snippet(of body: [UInt8]) -> String? {
        guard !body.isEmpty else { return nil }
        var prefix = body.prefix(snippetLimit)
        // Do not cut a UTF-8 sequence in half: drop trailing continuation bytes and their lead.
        if prefix.count < body.count {
            while let last = prefix.last, last & 0xC0 == 0x80 { prefix.removeLast() }
            if let last = prefix.last, last >= 0xC0 { prefix.removeLast() }
        }
        return String(decoding: prefix, as: UTF8.self)
    }
}
