import HubEngine

/// A `remote` URL with placeholders (DESIGN.md "Config format v1"): `{uri}`, `{uri.N}`,
/// `{query.NAME}`, `{header.NAME}`, `{page}`, `{session}`, `{user.sub}`, `{user.claim.NAME}` (the
/// verified user: a chain that uses them needs one, and is memoized per user), `{locale}` (the
/// negotiated locale, one of `locales.supported`), and for actions
/// `{action.name}` and `{action.namespace}`. Every substitution is percent-encoded (RFC 3986 unreserved kept).
public struct URLTemplate: Sendable, Equatable, CustomStringConvertible {
    public enum Part: Sendable, Equatable {
        case literal(String)
        case uri
        case uriSegment(Int)
        case query(String)
        case header(String)
        case page
        case session
        case actionName
        case actionNamespace
        /// `{user.sub}`: the verified user's subject.
        case userSubject
        /// `{user.claim.NAME}`: a claim `identity.claims` names.
        case userClaim(String)
        /// `{locale}`: the request's negotiated locale (`server.json` `locales`).
        case locale
    }

    public let source: String
    public let parts: [Part]
    /// For a `file:` URL with placeholders: the directory (real path, symlinks resolved) an
    /// expansion must resolve inside (the config directory); see ``resolve(_:)``.
    public package(set) var fileRoot: String?

    /// What a substitution can draw on.
    public struct Values: Sendable {
        public var request: ViewRequest
        public var page: Int
        public var sessionID: String
        public var actionName: String?
        public var actionNamespace: String?

        public init(request: ViewRequest, page: Int = 0, sessionID: String = "", actionName: String? = nil, actionNamespace: String? = nil) {
            self.request = request
            self.page = page
            self.sessionID = sessionID
            self.actionName = actionName
            self.actionNamespace = actionNamespace
        }
    }

    /// Parses a template; `allowActions` admits the `{action.*}` placeholders.
    public init(_ source: String, allowActions: Bool = false) throws(TemplateError) {
        self.source = source
        var parts: [Part] = []
        var literal = ""
        var rest = Substring(source)
        while let open = rest.firstIndex(of: "{") {
            literal += rest[..<open]
            // A '}' outside a placeholder is refused wherever it is (it once passed before the last one).
            if literal.contains("}") { throw TemplateError(message: "unmatched '}' in URL template") }
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw TemplateError(message: "unclosed '{' in URL template")
            }
            let name = String(rest[rest.index(after: open)..<close])
            if !literal.isEmpty {
                parts.append(.literal(literal))
                literal = ""
            }
            parts.append(try Self.placeholder(name, allowActions: allowActions))
            rest = rest[rest.index(after: close)...]
        }
        literal += rest
        if literal.contains("}") { throw TemplateError(message: "unmatched '}' in URL template") }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        self.parts = parts
        try Self.checkOrigin(parts)
    }

    /// A client must never choose where a request goes: placeholders may appear only after the
    /// scheme and the authority (`scheme://host[:port]`) are complete.
    private static func checkOrigin(_ parts: [Part]) throws(TemplateError) {
        let hasPlaceholder = parts.contains { part in
            if case .literal = part { return false }
            return true
        }
        guard hasPlaceholder else { return }
        let prefix: Substring
        if case .literal(let text)? = parts.first { prefix = Substring(text) } else { prefix = "" }
        guard let colon = prefix.firstIndex(of: ":") else {
            throw TemplateError(message: "a placeholder may not appear in the URL's scheme")
        }
        let rest = prefix[prefix.index(after: colon)...]
        guard rest.hasPrefix("//") else { return }  // no authority (such as file:/path)
        let authority = rest.dropFirst(2)
        if !authority.contains(where: { $0 == "/" || $0 == "?" || $0 == "#" }) {
            throw TemplateError(message: "a placeholder may not appear in the URL's host or port (a client must never choose the host)")
        }
    }

    private static func placeholder(_ name: String, allowActions: Bool) throws(TemplateError) -> Part {
        switch name {
        case "uri": return .uri
        case "page": return .page
        case "session": return .session
        case "user.sub": return .userSubject
        case "locale": return .locale
        case "action.name" where allowActions: return .actionName
        case "action.namespace" where allowActions: return .actionNamespace
        default: break
        }
        if name.hasPrefix("uri."), let index = Int(name.dropFirst(4)), index >= 0 { return .uriSegment(index) }
        if name.hasPrefix("query."), name.count > 6 { return .query(String(name.dropFirst(6))) }
        if name.hasPrefix("header."), name.count > 7 { return .header(String(name.dropFirst(7))) }
        if name.hasPrefix("user.claim."), name.count > 11 { return .userClaim(String(name.dropFirst(11))) }
        let common = "{uri}, {uri.N}, {query.NAME}, {header.NAME}, {page}, {session}, {user.sub}, {user.claim.NAME}, {locale}"
        let known = allowActions ? common + ", {action.name}, {action.namespace}" : common
        throw TemplateError(message: "unknown placeholder {\(name)}; known: \(known)")
    }

    /// `true` when the URL changes with the page index.
    public var usesPage: Bool { parts.contains(.page) }

    /// `true` when the URL depends on the session identifier.
    public var usesSession: Bool { parts.contains(.session) }

    /// `true` when the URL names the verified user (`{user.sub}`, `{user.claim.NAME}`).
    public var usesUser: Bool {
        parts.contains { part in
            switch part {
            case .userSubject, .userClaim: return true
            default: return false
            }
        }
    }

    /// The URL with every placeholder substituted and percent-encoded; missing values are empty.
    public func expand(_ values: Values) -> String {
        // A URL without placeholders is the literal itself (no copy).
        if parts.count == 1, case .literal(let text) = parts[0] { return text }
        var url = ""
        for part in parts {
            switch part {
            case .literal(let text): url += text
            case .uri: url += Self.encode(values.request.viewURI)
            case .uriSegment(let index): url += Self.encode(ViewURI.segment(index, of: values.request.viewURI) ?? "")
            case .query(let name): url += Self.encode(values.request.queryValue(name) ?? "")
            case .header(let name): url += Self.encode(values.request.header(name) ?? "")
            case .page: url += String(values.page)
            case .session: url += Self.encode(values.sessionID)
            case .actionName: url += Self.encode(values.actionName ?? "")
            case .actionNamespace: url += Self.encode(values.actionNamespace ?? "")
            case .userSubject: url += Self.encode(values.request.user?.subject ?? "")
            case .userClaim(let name): url += Self.encode(values.request.user?.claim(name) ?? "")
            case .locale: url += Self.encode(values.request.locale ?? "")
            }
        }
        return url
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters.
    public static func encode(_ text: String) -> String {
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                bytes.append(byte)
            default:
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    public var description: String { source }
}

/// A URL template that cannot be parsed.
public struct TemplateError: Error, Sendable, Equatable {
    public let message: String
}
