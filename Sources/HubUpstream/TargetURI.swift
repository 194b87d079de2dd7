/// A request's target URI in the form the HTTP cache compares (RFC 9110 4.2.3, RFC 3986 6.2.2):
/// scheme and host lowercased, the scheme's default port dropped, an empty path as `/`, dot
/// segments removed, user info and fragment dropped; the query is kept as it is.
/// Percent-encoding is not normalized (differently encoded URIs are different targets).
///
/// Used to find the stored responses an unsafe request invalidates (RFC 9111 4.4), including the
/// relative URI references of `Location` and `Content-Location`.
struct TargetURI: Hashable {
    /// Lowercased, such as `https`.
    var scheme: String
    /// Lowercased host with `:port` unless the port is the scheme's default; empty for `file:///`.
    var authority: String
    /// Starts with `/` whenever there is an authority.
    var path: String
    /// Without the `?`; nil when there is none.
    var query: String?

    /// Parses an absolute URI; nil when `text` has no scheme.
    init?(_ text: String) {
        guard let reference = Reference(text), let scheme = reference.scheme else { return nil }
        self.init(scheme: scheme, authority: reference.authority ?? "", path: reference.path, query: reference.query)
    }

    private init(scheme: String, authority: String, path: String, query: String?) {
        self.scheme = scheme.lowercased()
        self.authority = Self.normalizedAuthority(authority, scheme: self.scheme)
        self.path = Self.removingDotSegments(path.isEmpty && !authority.isEmpty ? "/" : path)
        self.query = query
    }

    /// `reference` (absolute, or relative to this URI, as in `Location`) resolved per RFC 3986 5.2.2;
    /// nil when it cannot be parsed.
    func resolving(_ reference: String) -> TargetURI? {
        guard let relative = Reference(reference) else { return nil }
        if let scheme = relative.scheme {
            return TargetURI(scheme: scheme, authority: relative.authority ?? "", path: relative.path, query: relative.query)
        }
        if let authority = relative.authority {
            return TargetURI(scheme: scheme, authority: authority, path: relative.path, query: relative.query)
        }
        var resolved = self
        if relative.path.isEmpty {
            if let query = relative.query { resolved.query = query }
            return resolved
        }
        if relative.path.hasPrefix("/") {
            resolved.path = Self.removingDotSegments(relative.path)
        } else {
            let directory = path.lastIndex(of: "/").map { path[...$0] } ?? "/"
            resolved.path = Self.removingDotSegments(String(directory) + relative.path)
        }
        resolved.query = relative.query
        return resolved
    }

    /// True when `other` has the same scheme, host and port.
    func isSameOrigin(as other: TargetURI) -> Bool {
        scheme == other.scheme && authority == other.authority
    }

    /// The normalized URI as text: the key the cache indexes stored responses by.
    var text: String {
        var text = scheme + ":"
        if !authority.isEmpty || scheme == "file" || path.hasPrefix("//") { text += "//" + authority }
        text += path
        if let query { text += "?" + query }
        return text
    }

    /// `host[:port]` without user info, lowercased, without the scheme's default port.
    private static func normalizedAuthority(_ authority: String, scheme: String) -> String {
        var hostPort = Substring(authority)
        if let at = hostPort.lastIndex(of: "@") { hostPort = hostPort[hostPort.index(after: at)...] }
        let lowered = hostPort.lowercased()
        let defaultPort = scheme == "http" ? ":80" : scheme == "https" ? ":443" : nil
        if let defaultPort, lowered.hasSuffix(defaultPort) { return String(lowered.dropLast(defaultPort.count)) }
        if lowered.hasSuffix(":") { return String(lowered.dropLast()) }  // an empty port
        return lowered
    }

    /// RFC 3986 5.2.4 for a path that starts with `/`; other paths are returned as they are.
    static func removingDotSegments(_ path: String) -> String {
        guard path.hasPrefix("/"), path.contains(".") else { return path }
        var output: [Substring] = []
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            switch segment {
            case ".":
                if isLast { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if isLast { output.append("") }
            default:
                output.append(segment)
            }
        }
        return "/" + output.joined(separator: "/")
    }

    /// The components of a URI reference (RFC 3986 3), fragment dropped.
    private struct Reference {
        var scheme: String?
        var authority: String?
        var path: String
        var query: String?

        init?(_ text: String) {
            var rest = Substring(text)
            if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
            if let colon = rest.firstIndex(of: ":"), Self.isScheme(rest[..<colon]) {
                scheme = String(rest[..<colon])
                rest = rest[rest.index(after: colon)...]
            }
            if rest.hasPrefix("//") {
                rest = rest.dropFirst(2)
                let end = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
                authority = String(rest[..<end])
                rest = rest[end...]
            }
            if let question = rest.firstIndex(of: "?") {
                query = String(rest[rest.index(after: question)...])
                rest = rest[..<question]
            }
            path = String(rest)
            guard !path.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { return nil }
        }

        /// `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`
        private static func isScheme(_ text: Substring) -> Bool {
            guard let first = text.first, first.isASCII, first.isLetter else { return false }
            return text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
        }
    }
}
