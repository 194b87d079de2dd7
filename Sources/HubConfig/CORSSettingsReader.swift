import HubHTTP
import HubModel

/// Reads `server.json`'s `"cors"` object into a ``CORSPolicy`` (docs/CONFIG.md "Web clients (CORS)").
///
/// ```json
/// "cors": { "origins": ["https://app.example.com"], "allowCredentials": false,
///           "allowedHeaders": ["Content-Type", "Hub-*"], "exposedHeaders": ["Hub-Session", "ETag"],
///           "maxAgeSeconds": 600 }
/// ```
/// `origins` is required; the rest default to ``CORSPolicy``'s defaults.
package enum CORSSettingsReader {
    package static func read(_ value: JSONValue?, reader: ConfigReader) -> CORSPolicy? {
        let path = "$.cors"
        guard let cors = reader.object(value, at: path) else { return nil }
        reader.checkKeys(cors, at: path, known: ["origins", "allowCredentials", "allowedHeaders", "exposedHeaders", "maxAgeSeconds"])
        guard let origins = reader.stringList(cors, "origins", at: path) else {
            reader.error("\(path).origins", "is required: exact origins such as \"https://app.example.com\", or \"*\"")
            return nil
        }
        var originsValid = true
        for (index, origin) in origins.enumerated() where origin != "*" && CORSPolicy.normalizedOrigin(origin) == nil {
            originsValid = false
            reader.error("\(path).origins[\(index)]", "'\(origin)' must be \"*\" or a serialized origin scheme://host[:port]")
        }
        let allowCredentials = reader.bool(cors, "allowCredentials", at: path) ?? false
        let allowedHeaders = reader.stringList(cors, "allowedHeaders", at: path) ?? CORSPolicy.defaultAllowedHeaders
        let exposedHeaders = reader.stringList(cors, "exposedHeaders", at: path) ?? CORSPolicy.defaultExposedHeaders
        let maxAge = reader.int(cors, "maxAgeSeconds", at: path, range: 0...86_400) ?? CORSPolicy.defaultMaxAgeSeconds
        do {
            return try CORSPolicy(
                origins: origins, allowCredentials: allowCredentials, allowedHeaders: allowedHeaders,
                exposedHeaders: exposedHeaders, maxAgeSeconds: maxAge)
        } catch let error as CORSPolicy.InvalidPolicy {
            // Invalid origins were reported one by one above; the rest (empty list, * with
            // others or with credentials, header names) are reported here.
            if originsValid { reader.error(path, error.description) }
            return nil
        } catch {
            reader.error(path, "\(error)")
            return nil
        }
    }
}
