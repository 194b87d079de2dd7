import HubModel

/// Which requests write an access log line (`server.json` `log.access`).
///
/// One line per request cost 57 MB for 310k requests (and the encoding time on the loops):
/// the default logs only what someone will look for, errors and slow requests
/// (docs/PERFORMANCE.md "Access log cost" has the measurements).
///
/// ```json
/// { "log": { "access": { "mode": "errors", "slowMs": 1000, "sampleRatio": 0.01 } } }
/// ```
/// - `all`: every request (the behaviour before this setting);
/// - `errors` (default): status 400 and above, and requests slower than `slowMs`;
/// - `sampled`: `errors`, plus a random `sampleRatio` (0...1) of the other requests;
/// - `off`: none (metrics still count every request).
public struct AccessLogPolicy: Sendable, Equatable {
    public enum Mode: String, Sendable, CaseIterable {
        case all, errors, sampled, off
    }

    public var mode = Mode.errors
    /// Requests at least this slow are logged in `errors` and `sampled` modes.
    public var slowMilliseconds = 1000
    /// The fraction of other requests logged in `sampled` mode.
    public var sampleRatio = 0.01

    public init() {}

    /// Whether a request that answered `status` after `milliseconds` writes its line.
    public func shouldLog(status: Int, milliseconds: Double) -> Bool {
        switch mode {
        case .all: return true
        case .off: return false
        case .errors: return status >= 400 || milliseconds >= Double(slowMilliseconds)
        case .sampled:
            if status >= 400 || milliseconds >= Double(slowMilliseconds) { return true }
            return sampleRatio > 0 && Double.random(in: 0..<1) < sampleRatio
        }
    }

    /// Reads `log.access`; wrong types and ranges are errors.
    package init(json: JSONValue?, reader: ConfigReader, at path: String) {
        guard let object = reader.object(json, at: path) else { return }
        reader.checkKeys(object, at: path, known: ["mode", "slowMs", "sampleRatio"])
        if let text = reader.string(object, "mode", at: path) {
            if let mode = Mode(rawValue: text) { self.mode = mode } else {
                reader.error("\(path).mode", "must be one of all, errors, sampled, off")
            }
        }
        if let slow = reader.int(object, "slowMs", at: path, range: 0...3_600_000) { slowMilliseconds = slow }
        if let value = object["sampleRatio"] {
            let number: Double? = switch value {
            case .int(let integer): Double(integer)
            case .double(let double): double
            default: nil
            }
            if let number, number.isFinite, (0...1).contains(number) { sampleRatio = number } else {
                reader.error("\(path).sampleRatio", "must be a number between 0 and 1")
            }
        }
    }
}
