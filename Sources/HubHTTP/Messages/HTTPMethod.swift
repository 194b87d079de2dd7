/// An HTTP request method (RFC 9110 section 9): a case-sensitive token.
///
/// A struct around the token rather than an enum, so extension methods pass through unchanged.
public struct HTTPMethod: Sendable, Hashable, CustomStringConvertible {
    /// The method token exactly as sent, for example `GET`.
    public let rawValue: String

    /// Wraps a method token. The parser only produces valid tokens.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    public static let get = HTTPMethod("GET")
    public static let head = HTTPMethod("HEAD")
    public static let post = HTTPMethod("POST")
    public static let put = HTTPMethod("PUT")
    public static let delete = HTTPMethod("DELETE")
    public static let options = HTTPMethod("OPTIONS")
    public static let patch = HTTPMethod("PATCH")
    public static let connect = HTTPMethod("CONNECT")
    public static let trace = HTTPMethod("TRACE")
    /// QUERY (draft-ietf-httpbis-safe-method-w-body): a safe method with content.
    public static let query = HTTPMethod("QUERY")

    /// Methods the server knows (``standard`` and QUERY): a route that does not allow one answers
    /// 405 with `Allow`; any other token is 501 (RFC 9110 section 9.1).
    public var isKnown: Bool { isStandard || self == .query }

    /// The methods of RFC 9110 and PATCH (RFC 5789).
    public static let standard: Set<HTTPMethod> = [.get, .head, .post, .put, .delete, .options, .patch, .connect, .trace]

    /// `true` for a method of ``standard``.
    public var isStandard: Bool {
        // Compared as (small) strings: no hashing, no set to load, on every request.
        switch rawValue {
        case "GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "CONNECT", "TRACE": true
        default: false
        }
    }

    /// The method as a metric label or log field: a standard method's token, `OTHER` for any
    /// other token (the client chooses it: it must never become an unbounded label set).
    public var boundedLabel: String { isStandard ? rawValue : "OTHER" }
}
