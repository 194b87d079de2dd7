/// An RFC 9457 problem details object, sent as `application/problem+json`.
///
/// ```json
/// {"type":"about:blank","title":"Not Found","status":404,"detail":"No route for /x","code":"route_not_found"}
/// ```
/// `code` is a stable snake_case identifier for clients and metrics; `detail` is a human-readable
/// sentence that never carries internals (stack traces, file paths, error dumps).
public struct ProblemDetails: Sendable, Hashable {
    /// A value of an extension member.
    public enum Value: Sendable, Hashable {
        case string(String)
        case int(Int)
        case bool(Bool)
        case strings([String])
    }

    /// A URI naming the problem type; `about:blank` when the status says it all.
    public var type: String
    /// A short summary, by default the status's reason phrase.
    public var title: String
    /// The HTTP status code.
    public var status: Int
    /// An explanation of this occurrence, or nil.
    public var detail: String?
    /// A stable snake_case code, for example `route_not_found`.
    public var code: String
    /// Extension members, written after the standard ones in this order.
    public var extensions: [(name: String, value: Value)]

    public init(
        status: HTTPStatus, code: String, detail: String? = nil, title: String? = nil,
        type: String = "about:blank", extensions: [(name: String, value: Value)] = []
    ) {
        self.type = type
        self.title = title ?? status.reasonPhrase
        self.status = status.code
        self.detail = detail
        self.code = code
        self.extensions = extensions
    }

    public static func == (lhs: ProblemDetails, rhs: ProblemDetails) -> Bool {
        lhs.jsonBytes == rhs.jsonBytes
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(jsonBytes) }

    /// The JSON serialization, keys in a fixed order.
    public var jsonBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        out.append(contentsOf: #"{"type":"#.utf8)
        JSONText.appendString(type, to: &out)
        out.append(contentsOf: #","title":"#.utf8)
        JSONText.appendString(title, to: &out)
        out.append(contentsOf: #","status":"#.utf8)
        out.append(contentsOf: String(status).utf8)
        if let detail {
            out.append(contentsOf: #","detail":"#.utf8)
            JSONText.appendString(detail, to: &out)
        }
        out.append(contentsOf: #","code":"#.utf8)
        JSONText.appendString(code, to: &out)
        let reserved: Set<String> = ["type", "title", "status", "detail", "code"]
        for (name, value) in extensions where !reserved.contains(name) {
            out.append(UInt8(ascii: ","))
            JSONText.appendString(name, to: &out)
            out.append(UInt8(ascii: ":"))
            switch value {
            case .string(let string): JSONText.appendString(string, to: &out)
            case .int(let int): out.append(contentsOf: String(int).utf8)
            case .bool(let bool): out.append(contentsOf: (bool ? "true" : "false").utf8)
            case .strings(let strings):
                out.append(UInt8(ascii: "["))
                for (index, string) in strings.enumerated() {
                    if index > 0 { out.append(UInt8(ascii: ",")) }
                    JSONText.appendString(string, to: &out)
                }
                out.append(UInt8(ascii: "]"))
            }
        }
        out.append(UInt8(ascii: "}"))
        return out
    }
}

/// Minimal JSON string writing for problem bodies.
enum JSONText {
    static func appendString(_ string: String, to out: inout [UInt8]) {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20, 0x7F:
                out.append(contentsOf: Array(#"\u00"#.utf8))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
