import Foundation
import HubEngine

/// An expanded URL that would leave its bounds: a client's value formed a `.` or `..` path
/// segment, or a `file:` URL resolved outside its directory. Answered 400 `unsafe_url`.
public struct UnsafeURLError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String

    public var description: String { "the request's values would take the upstream URL out of its bounds: \(reason)" }
}

extension URLTemplate {
    /// ``expand(_:)`` with the bounds a client's values must keep:
    ///
    /// - no path segment that a substitution touches may be, or contain after percent-decoding
    ///   (`%2F` and `\` count as separators), a `.` or `..` segment: curl and many upstreams
    ///   resolve dot segments, and curl decodes a `file:` path before opening it;
    /// - a `file:` URL with ``fileRoot`` must resolve, symlinks included, inside that directory;
    ///   the URL returned then names the resolved file, so nothing resolves it again.
    public func resolve(_ values: Values) throws(UnsafeURLError) -> String {
        try checkDotSegments(values)
        let url = expand(values)
        guard let fileRoot else { return url }
        return try Self.confine(fileURL: url, to: fileRoot)
    }

    /// Walks the path (up to the first literal `?` or `#`) segment by segment, decoded.
    private func checkDotSegments(_ values: Values) throws(UnsafeURLError) {
        // No placeholder: no value can form a segment (the literal was checked when loaded).
        if parts.count == 1, case .literal = parts[0] { return }
        var segment = ""
        var touched = false
        func finish() throws(UnsafeURLError) {
            defer { segment = ""; touched = false }
            guard touched else { return }
            let decoded = Self.percentDecoded(segment)
            for piece in decoded.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "/" || $0 == "\\" })
            where piece == "." || piece == ".." {
                throw UnsafeURLError(reason: "a value forms a '\(piece)' path segment")
            }
        }
        for part in parts {
            guard let value = Self.rawValue(part, values) else {
                guard case .literal(let text) = part else { continue }
                // By UTF-8 code unit: '/', '?' and '#' are ASCII, so slices stay on scalar boundaries.
                var rest = Substring(text)
                while let stop = rest.utf8.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
                    segment += rest[..<stop]
                    try finish()
                    if rest.utf8[stop] != UInt8(ascii: "/") { return }
                    rest = rest[rest.utf8.index(after: stop)...]
                }
                segment += rest
                continue
            }
            // Substitutions are percent-encoded, so the value stays within this segment: here it
            // is kept raw, which is what a decoding reader (curl's file:) sees.
            segment += Self.percentEncodedPercent(value)
            touched = true
        }
        try finish()
    }

    /// The raw text a placeholder substitutes; nil for literals.
    private static func rawValue(_ part: Part, _ values: Values) -> String? {
        switch part {
        case .literal: return nil
        case .uri: return values.request.viewURI
        case .uriSegment(let index): return ViewURI.segment(index, of: values.request.viewURI) ?? ""
        case .query(let name): return values.request.queryValue(name) ?? ""
        case .header(let name): return values.request.header(name) ?? ""
        case .page: return String(values.page)
        case .session: return values.sessionID
        case .actionName: return values.actionName ?? ""
        case .actionNamespace: return values.actionNamespace ?? ""
        case .userSubject: return values.request.user?.subject ?? ""
        case .userClaim(let name): return values.request.user?.claim(name) ?? ""
        case .locale: return values.request.locale ?? ""
        }
    }

    /// `%` as `%25`, so that decoding the segment yields the value itself (a value is
    /// percent-encoded once on the wire, and decoded once by the reader).
    private static func percentEncodedPercent(_ value: String) -> String {
        value.contains("%") ? value.replacingOccurrences(of: "%", with: "%25") : value
    }

    /// Percent-decodes `%XX` escapes (invalid escapes stay as they are).
    package static func percentDecoded(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
                let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2])
            {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The file URL's path resolved with `realpath` (symlinks too); it must be `root` or inside it.
    /// A file that does not exist keeps its URL (the fetch reports it missing, reading nothing).
    package static func confine(fileURL url: String, to root: String) throws(UnsafeURLError) -> String {
        guard url.lowercased().hasPrefix("file://") else { return url }
        var rest = Substring(url.dropFirst(7))
        if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        guard let slash = rest.firstIndex(of: "/") else { throw UnsafeURLError(reason: "a file URL without a path") }
        let host = rest[..<slash]
        guard host.isEmpty || host.lowercased() == "localhost" else {
            throw UnsafeURLError(reason: "a file URL on another host")
        }
        let path = percentDecoded(String(rest[slash...]))
        guard !path.utf8.contains(0) else { throw UnsafeURLError(reason: "a NUL byte in a file path") }
        guard let resolved = realpath(path, nil) else {
            if errno == ENOENT || errno == ENOTDIR { return url }
            throw UnsafeURLError(reason: "a file path that cannot be resolved")
        }
        defer { free(resolved) }
        let real = String(cString: resolved)
        guard real == root || real.hasPrefix(root.hasSuffix("/") ? root : root + "/") else {
            throw UnsafeURLError(reason: "a file outside the config directory")
        }
        return "file://" + real.split(separator: "/", omittingEmptySubsequences: false)
            .map { encode(String($0)) }.joined(separator: "/")
    }

    /// The real path of `directory` (symlinks resolved), for ``fileRoot``; nil when it does not exist.
    package static func realDirectory(_ directory: String) -> String? {
        guard let resolved = realpath(directory, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
