import HubHTTP
import HubPrimitives

/// Query parameter rules of DESIGN.md: `uri` and `session` at most once, non-empty.
enum QueryParameters {
    /// The value of the parameter `name`, `nil` when absent; 400 `duplicate_parameter` when given twice.
    static func single(_ name: String, in request: HTTPRequest) throws -> String? {
        // One pass, no array of values (this runs twice on every `GET /view`).
        var found: String?
        for item in request.query where item.name == name {
            guard found == nil else {
                throw HTTPError(.badRequest, code: "duplicate_parameter", detail: "'\(name)' may be given only once")
            }
            found = item.value
        }
        return found
    }

    /// A view URI: present, non-empty, no control characters, at most 4096 bytes.
    static func viewURI(_ uri: String?) throws -> String {
        guard let uri else {
            throw HTTPError(.badRequest, code: "missing_uri", detail: "give the view URI: ?uri=hub:home")
        }
        // Scanned in place: iterating a short (inline) string's `utf8` decodes it byte by byte.
        let hasControl = ASCII.withUTF8(of: uri) { bytes in bytes.contains { $0 < 0x20 || $0 == 0x7F } }
        guard !uri.isEmpty, uri.utf8.count <= 4096, !hasControl else {
            throw HTTPError(.badRequest, code: "invalid_uri", detail: "the view URI must be non-empty printable text up to 4096 bytes")
        }
        return uri
    }
}
