/// The parts of an upstream response's caching headers (RFC 9111) the client acts on.
struct CacheControl: Equatable {
    var noStore = false
    var noCache = false
    var isPrivate = false
    var maxAge: Int?
    var sharedMaxAge: Int?
    var varyAll = false
    /// The `Age` the upstream (or a cache in front of it) reported, in seconds.
    var age = 0
    var etag: String?
    var lastModified: String?

    /// Reads `Cache-Control`, `Vary`, `Age`, `ETag` and `Last-Modified` from `headers`.
    init(headers: [(name: String, value: String)]) {
        for (name, value) in headers {
            if asciiCaseInsensitiveEquals(name, "cache-control") {
                parseDirectives(value)
            } else if asciiCaseInsensitiveEquals(name, "vary") {
                varyAll = varyAll || value.split(separator: ",").contains { $0.trimmingSpaces() == "*" }
            } else if asciiCaseInsensitiveEquals(name, "age") {
                age = max(0, Int(value.trimmingCharacters()) ?? 0)
            } else if asciiCaseInsensitiveEquals(name, "etag") {
                etag = value
            } else if asciiCaseInsensitiveEquals(name, "last-modified") {
                lastModified = value
            }
        }
    }

    private mutating func parseDirectives(_ value: String) {
        for part in value.split(separator: ",") {
            let directive = part.trimmingSpaces()
            let pieces = directive.split(separator: "=", maxSplits: 1)
            guard let rawName = pieces.first else { continue }
            let name = rawName.trimmingSpaces().lowercased()
            let argument = pieces.count > 1
                ? pieces[1].trimmingSpaces().trimmingCharacters(in: "\"") : nil
            switch name {
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "private": isPrivate = true
            case "max-age": maxAge = argument.flatMap { Int($0) }.map { max(0, $0) } ?? 0
            case "s-maxage": sharedMaxAge = argument.flatMap { Int($0) }.map { max(0, $0) } ?? 0
            default: break
            }
        }
    }

    /// Whether a response may be stored at all. This client acts as a shared cache (one upstream
    /// body may serve many clients' views), so `private`, `no-store` and `Vary: *` are not stored.
    var isStorable: Bool { !noStore && !isPrivate && !varyAll }

    /// Seconds the response stays fresh from now: `s-maxage` over `max-age`, minus `Age`; 0 for
    /// `no-cache` or no explicit lifetime (stored only to revalidate with its validators).
    var freshSeconds: Int {
        guard !noCache, let lifetime = sharedMaxAge ?? maxAge else { return 0 }
        return max(0, lifetime - age)
    }

    /// True when the response carries a validator for a conditional request.
    var hasValidator: Bool { etag != nil || lastModified != nil }
}

extension StringProtocol {
    /// Drops leading and trailing spaces and tabs.
    fileprivate func trimmingCharacters() -> Substring { Substring(self).trimmingSpaces() }

    /// Drops every leading and trailing occurrence of `character`.
    fileprivate func trimmingCharacters(in character: Character) -> String {
        var result = Substring(self)
        while result.first == character { result.removeFirst() }
        while result.last == character { result.removeLast() }
        return String(result)
    }
}
