import HubPrimitives

/// The parts of an upstream response's caching headers (RFC 9111) the client acts on.
struct CacheControl: Equatable {
    var noStore = false
    var noCache = false
    var isPrivate = false
    var maxAge: Int?
    var sharedMaxAge: Int?
    /// `stale-if-error=N` (RFC 5861): seconds past freshness a stale response may stand in for a failure.
    var staleIfError: Int?
    /// `stale-while-revalidate=N` (RFC 5861): seconds past freshness a stale response may be
    /// served while one refresh runs in the background.
    var staleWhileRevalidate: Int?
    var varyAll = false
    /// The `Age` the upstream (or a cache in front of it) reported, in seconds.
    var age = 0
    /// The raw `Expires` value; several `Expires` fields are joined with ", " (never a valid date).
    var expires: String?
    /// The raw `Date` value (the first one).
    var date: String?
    var etag: String?
    var lastModified: String?

    /// Reads `Cache-Control`, `Vary`, `Age`, `Expires`, `Date`, `ETag` and `Last-Modified` from `headers`.
    init(headers: [(name: String, value: String)]) {
        for (name, value) in headers {
            if name.asciiCaseInsensitiveEquals("cache-control") {
                parseDirectives(value)
            } else if name.asciiCaseInsensitiveEquals("vary") {
                varyAll = varyAll || value.split(separator: ",").contains { $0.trimmingOWS() == "*" }
            } else if name.asciiCaseInsensitiveEquals("age") {
                age = Self.deltaSeconds(value.trimmingOWS()) ?? 0
            } else if name.asciiCaseInsensitiveEquals("expires") {
                expires = expires.map { $0 + ", " + value } ?? value
            } else if name.asciiCaseInsensitiveEquals("date") {
                if date == nil { date = value }
            } else if name.asciiCaseInsensitiveEquals("etag") {
                etag = value
            } else if name.asciiCaseInsensitiveEquals("last-modified") {
                lastModified = value
            }
        }
    }

    private mutating func parseDirectives(_ value: String) {
        for part in value.split(separator: ",") {
            let directive = part.trimmingOWS()
            let pieces = directive.split(separator: "=", maxSplits: 1)
            guard let rawName = pieces.first else { continue }
            let name = rawName.trimmingOWS().lowercased()
            let argument = pieces.count > 1
                ? pieces[1].trimmingOWS().trimmingCharacters(in: "\"") : nil
            switch name {
            case "no-store": noStore = true
            case "no-cache": noCache = true
            case "private": isPrivate = true
            case "max-age": maxAge = argument.flatMap { Self.deltaSeconds($0) } ?? 0
            case "s-maxage": sharedMaxAge = argument.flatMap { Self.deltaSeconds($0) } ?? 0
            case "stale-if-error": staleIfError = argument.flatMap { Self.deltaSeconds($0) }
            case "stale-while-revalidate": staleWhileRevalidate = argument.flatMap { Self.deltaSeconds($0) }
            default: break
            }
        }
    }

    /// Whether a response may be stored at all. This client acts as a shared cache (one upstream
    /// body may serve many clients' views), so `private`, `no-store` and `Vary: *` are not stored.
    var isStorable: Bool { !noStore && !isPrivate && !varyAll }

    /// Seconds the response stays fresh from its receipt (RFC 9111 4.2): freshness lifetime minus
    /// current age, never negative; 0 for `no-cache`, or for no explicit lifetime and no
    /// `defaultLifetime` (such a response is stored only to revalidate with its validators).
    ///
    /// - The lifetime is `s-maxage`, else `max-age`, else `Expires` minus `Date` (4.2.1), where a
    ///   missing or invalid `Date` means `receivedAt`, and an invalid `Expires` (such as `0`)
    ///   means already expired; else `defaultLifetime` (the operator's, in place of a heuristic
    ///   one: 4.2.2).
    /// - The current age is the larger of the apparent age (`receivedAt` minus a valid `Date`) and
    ///   `Age` plus `responseDelay` (4.2.3); it does not grow further since the response just arrived.
    ///
    /// - Parameters:
    ///   - receivedAt: wall-clock seconds since the epoch when the response arrived.
    ///   - responseDelay: whole seconds between sending the request and receiving the response.
    ///   - defaultLifetime: the lifetime of a response that states none; nil: none.
    func freshSeconds(receivedAt: Int, responseDelay: Int = 0, defaultLifetime: Int? = nil) -> Int {
        guard !noCache else { return 0 }
        let dateValue = date.flatMap { HTTPDate.parse($0, now: receivedAt) }
        let lifetime: Int
        if let explicit = sharedMaxAge ?? maxAge {
            lifetime = explicit
        } else if let expires {
            guard let expiresAt = HTTPDate.parse(expires, now: receivedAt) else { return 0 }
            lifetime = expiresAt - (dateValue ?? receivedAt)
        } else if let defaultLifetime {
            lifetime = defaultLifetime
        } else {
            return 0
        }
        let apparentAge = max(0, receivedAt - (dateValue ?? receivedAt))
        let currentAge = max(apparentAge, age + max(0, responseDelay))
        return min(max(0, lifetime - currentAge), Self.maxDeltaSeconds)
    }

    /// The cap on delta-seconds (RFC 9111 1.2.2): 2^31.
    static let maxDeltaSeconds = 2_147_483_648

    /// A delta-seconds value: ASCII digits only, saturating at ``maxDeltaSeconds``; nil otherwise.
    static func deltaSeconds(_ text: some StringProtocol) -> Int? {
        guard !text.isEmpty else { return nil }
        var value = 0
        for byte in text.utf8 {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            value = min(value * 10 + Int(byte - 0x30), maxDeltaSeconds)
        }
        return value
    }

    /// True when the response carries a validator for a conditional request.
    var hasValidator: Bool { etag != nil || lastModified != nil }
}

extension StringProtocol {
    /// Drops every leading and trailing occurrence of `character`.
    fileprivate func trimmingCharacters(in character: Character) -> String {
        var result = Substring(self)
        while result.first == character { result.removeFirst() }
        while result.last == character { result.removeLast() }
        return String(result)
    }
}
