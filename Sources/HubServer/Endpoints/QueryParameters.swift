import HubHTTP

/// Query parameter rules of DESIGN.md: `uri` and `session` at most once, non-empty.
enum QueryParameters {
    static func single(_ name: String, in request: HTTPRequest) throws -> String? {
        let values = request.queryValues(name)
        guard values.count <= 1 else {
            throw HTTPError(.badRequest, code: "duplicate_parameter", detail: "'\(name)' may be given only once")
        }
        return values.first
    }

    /// A view URI: present, non-empty, no control characters, at most 4096 bytes.
    static func viewURI(_ uri: String?) throws -> String {
        guard let uri else {
            throw HTTPError(.badRequest, code: "missing_uri", detail: "give the view URI: ?uri=hub:home")
        }
        guard !uri.isEmpty, uri.utf8.count <= 4096, !uri.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            throw HTTPError(.badRequest, code: "invalid_uri", detail: "the view URI must be non-empty printable text up to 4096 bytes")
        }
        return uri
    }
}
