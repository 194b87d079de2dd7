import HubHTTP
import HubModel
import HubPrimitives

/// Request bodies: `Content-Type: application/json` (else 415), valid UTF-8 JSON within the
/// depth limit with no duplicate keys (else 400), an object of the right shape (else 422).
enum JSONBody {
    static func object(from request: HTTPRequest, maxDepth: Int) throws -> JSONObject {
        let parts = request.headers["Content-Type"]?.split(separator: ";", omittingEmptySubsequences: false) ?? []
        let contentType = parts.first.map { $0.trimmingOWS().lowercased() }
        guard contentType == "application/json" else {
            throw HTTPError(
                .unsupportedMediaType, code: "unsupported_media_type",
                detail: "the body must be JSON with Content-Type: application/json")
        }
        // JSON is UTF-8 (RFC 8259 section 8.1): a body declared in another charset is 415.
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingOWS().lowercased() == "charset" else { continue }
            var value = String(pair[1].trimmingOWS())
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            guard value.lowercased() == "utf-8" else {
                throw HTTPError(
                    .unsupportedMediaType, code: "unsupported_media_type",
                    detail: "JSON bodies must be UTF-8 (charset=utf-8 or no charset)")
            }
        }
        let value: JSONValue
        do {
            value = try JSONParser(options: .init(maxDepth: maxDepth, duplicateKeys: .reject, largeIntegersAsDoubles: true))
                .parse(request.body)
        } catch {
            throw HTTPError(.badRequest, code: "invalid_json", detail: "the body is not valid JSON: \(error.description)")
        }
        guard let object = value.objectValue else {
            throw HTTPError(.unprocessableContent, code: "invalid_body", detail: "the body must be a JSON object")
        }
        return object
    }

    /// An optional string field; present with another type is 422.
    static func string(_ object: JSONObject, _ key: String) throws -> String? {
        guard let value = object[key] else { return nil }
        guard let string = value.stringValue else {
            throw HTTPError(.unprocessableContent, code: "invalid_body", detail: "'\(key)' must be a string")
        }
        return string
    }
}
