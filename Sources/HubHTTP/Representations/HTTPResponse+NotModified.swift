import HubPrimitives

extension HTTPResponse {
    /// Header fields a 304 leaves out: metadata of the content it does not carry (RFC 9110
    /// section 15.4.5: no representation metadata beyond the fields that guide cache updates)
    /// and framing.
    static let contentMetadata = [
        "Content-Type", "Content-Encoding", "Content-Language", "Content-Length", "Content-Range", "Transfer-Encoding",
    ]

    /// The `304 Not Modified` for a 200 with `headers` (RFC 9110 section 15.4.5): no body, and
    /// every field of `headers` but the content metadata. So it carries what the 200 would
    /// (`ETag`, `Cache-Control`, `Vary`, `Expires`, `Content-Location`, and the response's own
    /// fields such as a session or a request id); the server adds `Date`.
    public static func notModified(keeping headers: HTTPHeaders) -> HTTPResponse {
        var kept = HTTPHeaders()
        for field in headers where !contentMetadata.contains(where: { field.name.asciiCaseInsensitiveEquals($0) }) {
            kept.add(name: field.name, value: field.value)
        }
        return HTTPResponse(status: .notModified, headers: kept, body: .bytes([]))
    }
}
