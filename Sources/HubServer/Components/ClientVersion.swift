/// What `Hub-Client: platform/semver` says: the client's platform (`ios`, `android`, `web`, ...)
/// and its version, compared as semantic versions (`5.1` < `5.1.1` < `5.2.0-beta` < `5.2`).
///
/// The platform is compared case-insensitively (kept lowercased). The version is one to three
/// dot-separated numbers (missing ones are 0), optionally followed by `-prerelease` (which
/// orders it below the same numbers without one) and `+build` (ignored). A header of another
/// shape names no version: no kill switch applies to it.
struct ClientVersion: Sendable, Equatable, Comparable {
    /// Lowercased platform name.
    let platform: String
    /// Major, minor, patch.
    let numbers: [Int]
    /// `true` when the version carries a pre-release tag (`5.2.0-beta.1`).
    let isPrerelease: Bool

    /// The version of a `Hub-Client` header value, or `nil` when it is not `platform/semver`.
    init?(header: String) {
        let parts = header.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let platform = parts[0].trimmingCharacters(in: " \t")
        guard !platform.isEmpty, platform.utf8.count <= 64,
            let version = SemanticVersion(String(parts[1].trimmingCharacters(in: " \t")))
        else { return nil }
        self.platform = platform.lowercased()
        self.numbers = version.numbers
        self.isPrerelease = version.isPrerelease
    }

    init(platform: String, version: SemanticVersion) {
        self.platform = platform.lowercased()
        self.numbers = version.numbers
        self.isPrerelease = version.isPrerelease
    }

    /// This client's version without its platform.
    var version: SemanticVersion { SemanticVersion(numbers: numbers, isPrerelease: isPrerelease) }

    static func < (lhs: ClientVersion, rhs: ClientVersion) -> Bool {
        lhs.platform != rhs.platform ? lhs.platform < rhs.platform : lhs.version < rhs.version
    }
}

/// A semantic version as `Hub-Client` and kill switches write it: `MAJOR[.MINOR[.PATCH]]`, an
/// optional `-prerelease` and an ignored `+build`.
struct SemanticVersion: Sendable, Equatable, Comparable, CustomStringConvertible {
    /// Exactly three numbers: major, minor, patch.
    let numbers: [Int]
    let isPrerelease: Bool

    init(numbers: [Int], isPrerelease: Bool) {
        self.numbers = numbers
        self.isPrerelease = isPrerelease
    }

    /// Parses `5`, `5.2`, `5.2.1`, `5.2.1-beta.1`, `5.2.1+42`; `nil` for anything else.
    init?(_ text: String) {
        guard !text.isEmpty, text.utf8.count <= 64 else { return nil }
        var core = Substring(text)
        if let plus = core.firstIndex(of: "+") { core = core[..<plus] }
        var prerelease = false
        if let dash = core.firstIndex(of: "-") {
            guard core.index(after: dash) < core.endIndex else { return nil }
            prerelease = true
            core = core[..<dash]
        }
        let fields = core.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(fields.count) else { return nil }
        var numbers: [Int] = []
        for field in fields {
            guard !field.isEmpty, field.count <= 9, field.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(field)
            else { return nil }
            numbers.append(number)
        }
        while numbers.count < 3 { numbers.append(0) }
        self.numbers = numbers
        self.isPrerelease = prerelease
    }

    var description: String { numbers.map(String.init).joined(separator: ".") + (isPrerelease ? "-pre" : "") }

    static func < (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        if lhs.numbers != rhs.numbers { return lhs.numbers.lexicographicallyPrecedes(rhs.numbers) }
        return lhs.isPrerelease && !rhs.isPrerelease
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> Substring {
        var slice = self
        while let first = slice.first, set.contains(first) { slice.removeFirst() }
        while let last = slice.last, set.contains(last) { slice.removeLast() }
        return slice
    }
}
