import HubPrimitives

/// What ``CORSMiddleware`` allows: the Fetch standard's CORS protocol, as a value.
///
/// ```swift
/// let policy = try CORSPolicy(origins: ["https://app.example.com"], allowCredentials: true)
/// let responder = router.wrapped(in: [CORSMiddleware(policy: policy), ErrorMiddleware()])
/// ```
/// Origins are exact serialized origins (`scheme://host[:port]`, compared after lowercasing the
/// scheme and host and dropping a default port), or `*` alone for public read-only use. `*` is
/// answered as the literal `*`, never by reflecting the request's `Origin`, and cannot be
/// combined with credentials.
public struct CORSPolicy: Sendable, Equatable {
    /// Which origins may read responses.
    public enum Origins: Sendable, Equatable {
        /// Any origin, answered with `Access-Control-Allow-Origin: *` (no credentials).
        case any
        /// Exactly these serialized origins (normalized by ``CORSPolicy/normalizedOrigin(_:)``).
        case exact(Set<String>)
    }

    /// Why a policy could not be built.
    public struct InvalidPolicy: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Request headers allowed by default: `Hub-*` covers `Hub-Client`, `Hub-Connectivity`,
    /// `Hub-Components`, `Hub-Toggle` and `Hub-Client-Id`.
    public static let defaultAllowedHeaders = [
        "Content-Type", "Hub-*", "If-None-Match", "Last-Event-ID", "traceparent", "X-Request-Id",
    ]
    /// Response headers a script may read by default.
    public static let defaultExposedHeaders = [
        HubHeaderName.session, "ETag", "Server-Timing", HubHeaderName.version, "X-Request-Id", "Retry-After", HubHeaderName.rebuilt,
    ]
    /// The default preflight cache lifetime (Chromium caps it at 7200 s).
    public static let defaultMaxAgeSeconds = 600

    public let origins: Origins
    /// Whether cookies and HTTP authentication may accompany requests (`Access-Control-Allow-Credentials`).
    public let allowCredentials: Bool
    /// Allowed request header names; an entry ending in `*` allows every name with that prefix.
    public let allowedHeaders: [String]
    /// Response header names exposed to scripts (`Access-Control-Expose-Headers`).
    public let exposedHeaders: [String]
    /// `Access-Control-Max-Age` of preflight answers, in seconds.
    public let maxAgeSeconds: Int

    /// Builds a policy; throws ``InvalidPolicy`` for an origin that is not `*` or a serialized
    /// origin, for `*` next to other origins, for `*` with credentials, for an empty origin list,
    /// for a header name that is not a token, and for a negative max age.
    public init(
        origins: [String], allowCredentials: Bool = false, allowedHeaders: [String] = CORSPolicy.defaultAllowedHeaders,
        exposedHeaders: [String] = CORSPolicy.defaultExposedHeaders, maxAgeSeconds: Int = CORSPolicy.defaultMaxAgeSeconds
    ) throws {
        guard !origins.isEmpty else { throw InvalidPolicy(description: "at least one origin is required") }
        if origins.contains("*") {
            guard origins.count == 1 else {
                throw InvalidPolicy(description: "\"*\" allows every origin and cannot be listed with others")
            }
            guard !allowCredentials else {
                throw InvalidPolicy(description: "\"*\" cannot be combined with allowCredentials (browsers reject it; list exact origins)")
            }
            self.origins = .any
        } else {
            var exact: Set<String> = []
            for origin in origins {
                guard let normalized = Self.normalizedOrigin(origin) else {
                    throw InvalidPolicy(description: "'\(origin)' is not \"*\" or a serialized origin scheme://host[:port]")
                }
                exact.insert(normalized)
            }
            self.origins = .exact(exact)
        }
        for name in allowedHeaders {
            let stem = name.hasSuffix("*") ? String(name.dropLast()) : name
            guard (stem.isEmpty && name == "*") || Self.isToken(stem) else {
                throw InvalidPolicy(description: "'\(name)' is not a header name or a prefix ending in *")
            }
        }
        for name in exposedHeaders where !Self.isToken(name) {
            throw InvalidPolicy(description: "'\(name)' is not a header name")
        }
        guard maxAgeSeconds >= 0 else { throw InvalidPolicy(description: "the max age must not be negative") }
        self.allowCredentials = allowCredentials
        self.allowedHeaders = allowedHeaders
        self.exposedHeaders = exposedHeaders
        self.maxAgeSeconds = maxAgeSeconds
    }

    /// The `Access-Control-Allow-Origin` value for a request's `Origin`, or nil when it is not allowed.
    public func allowOrigin(for origin: String) -> String? {
        switch origins {
        case .any:
            return "*"
        case .exact(let allowed):
            guard let normalized = Self.normalizedOrigin(origin), allowed.contains(normalized) else { return nil }
            return normalized
        }
    }

    /// Whether the answer depends on `Origin` (so every response needs `Vary: Origin`).
    public var variesByOrigin: Bool { origins != .any }

    /// Whether the request header `name` may be sent (CORS-safelisted names always may).
    public func allowsHeader(_ name: some StringProtocol) -> Bool {
        for allowed in allowedHeaders {
            if allowed.hasSuffix("*") {
                let prefix = allowed.dropLast()
                if name.utf8.count >= prefix.utf8.count, name.prefix(prefix.count).asciiCaseInsensitiveEquals(prefix) {
                    return true
                }
            } else if name.asciiCaseInsensitiveEquals(allowed) {
                return true
            }
        }
        return false
    }

    /// `scheme://host[:port]` lowercased with the scheme's default port dropped, as browsers
    /// serialize an origin; nil for anything else (paths, user info, `null`, missing host).
    public static func normalizedOrigin(_ text: String) -> String? {
        guard let (schemePart, authorityPart) = splitScheme(text) else { return nil }
        let scheme = schemePart.lowercased()
        var authority = authorityPart.lowercased()
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }),
            !authority.isEmpty, !authority.contains(where: { "/?#@ \\".contains($0) || !$0.isASCII || $0.isWhitespace })
        else { return nil }
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            let rest = authority[authority.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return nil }
                port = rest.dropFirst()
            }
            authority = String(authority[...close])
        } else if let colon = authority.firstIndex(of: ":") {
            port = authority[authority.index(after: colon)...]
            authority = String(authority[..<colon])
        }
        guard !authority.isEmpty else { return nil }
        if let port {
            guard !port.isEmpty, port.count <= 5, port.allSatisfy(\.isASCII), port.allSatisfy(\.isNumber),
                let number = Int(port), number <= 65535
            else { return nil }
            let isDefault = (scheme == "http" && number == 80) || (scheme == "https" && number == 443)
            if !isDefault { return "\(scheme)://\(authority):\(number)" }
        }
        return "\(scheme)://\(authority)"
    }

    /// `scheme` and the rest of `scheme://rest`, or nil without `://`.
    static func splitScheme(_ text: String) -> (scheme: Substring, rest: Substring)? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let rest = text[text.index(after: colon)...]
        guard rest.hasPrefix("//") else { return nil }
        return (text[..<colon], rest.dropFirst(2))
    }

    /// RFC 9110 token characters.
    static func isToken(_ name: some StringProtocol) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return true
            default:
                return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
            }
        }
    }
}
