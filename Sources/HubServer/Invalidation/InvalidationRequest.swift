import HubEngine
import HubHTTP
import HubModel
import HubOperations

/// The body of `POST /invalidate`, `{"urls": [...], "urlPrefixes": [...], "tags": [...],
/// "features": [...]}` (every key optional, each a list of non-empty strings), as the engine's
/// ``ContentInvalidation``; also its form in the state store's change feed (``InvalidationFeed``).
enum InvalidationRequest {
    /// Most entries one invalidation may name, over all four lists.
    static let maximumEntries = 1000
    /// Largest body accepted, in bytes.
    static let maximumBodyBytes = 64 * 1024

    private static let keys = ["urls", "urlPrefixes", "tags", "features"]

    /// Reads a parsed body: an unknown key, a value that is not a list of non-empty strings, or
    /// nothing named at all is 422 `invalid_body`; more than ``maximumEntries`` entries is 422
    /// `too_many_entries`.
    static func invalidation(from body: JSONObject) throws -> ContentInvalidation {
        for key in body.orderedKeys where !keys.contains(key) {
            throw HTTPError(.unprocessableContent, code: "invalid_body", detail: "unknown field '\(key)'")
        }
        var lists: [String: [String]] = [:]
        var total = 0
        for key in keys {
            guard let value = body[key] else { continue }
            guard let array = value.arrayValue else {
                throw HTTPError(.unprocessableContent, code: "invalid_body", detail: "'\(key)' must be a list of strings")
            }
            total += array.count
            guard total <= maximumEntries else {
                throw HTTPError(
                    .unprocessableContent, code: "too_many_entries",
                    detail: "an invalidation names at most \(maximumEntries) entries in all")
            }
            var strings: [String] = []
            for element in array {
                guard let string = element.stringValue, !string.isEmpty else {
                    throw HTTPError(.unprocessableContent, code: "invalid_body", detail: "'\(key)' must hold non-empty strings")
                }
                strings.append(string)
            }
            lists[key] = strings
        }
        let invalidation = ContentInvalidation(
            urls: Set(lists["urls"] ?? []), urlPrefixes: lists["urlPrefixes"] ?? [], tags: Set(lists["tags"] ?? []),
            features: Set(lists["features"] ?? []))
        guard !invalidation.isEmpty else {
            throw HTTPError(
                .unprocessableContent, code: "invalid_body", detail: "name at least one of urls, urlPrefixes, tags, features")
        }
        return invalidation
    }

    /// `invalidation` as the JSON object this endpoint reads (what the change feed carries).
    static func json(_ invalidation: ContentInvalidation) -> JSONValue {
        var object = JSONObject()
        object["urls"] = .array(invalidation.urls.sorted().map { .string($0) })
        object["urlPrefixes"] = .array(invalidation.urlPrefixes.map { .string($0) })
        object["tags"] = .array(invalidation.tags.sorted().map { .string($0) })
        object["features"] = .array(invalidation.features.sorted().map { .string($0) })
        return .object(object)
    }
}
