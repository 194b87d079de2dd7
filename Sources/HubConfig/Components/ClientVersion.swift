/// What `Hub-Client: platform/semver` says: the client's platform (`ios`, `android`, `web`, ...)
/// and its version, compared as semantic versions (`5.1` < `5.1.1` < `5.2.0-beta` < `5.2`).
///
/// The platform is compared case-insensitively (kept lowercased). The version is one to three
/// dot-separated numbers (missing ones are 0), optionally followed by `-prerelease` (which
/// orders it below the same numbers without one) and `+build` (ignored). A header of another
/// shape names no version: no kill switch applies to it.
package struct ClientVersion: Sendable, Equatable {
    /// Lowercased platform name.
    package let platform: String
    package let version: SemanticVersion

    /// The version of a `Hub-Client` header value, or `nil` when it is not `platform/semver`.
    package init?(header: String) {
        let parts = header.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let platform = parts[0].trimmingCharacters(in: " \t")
        guard !platform.isEmpty, platform.utf8.count <= 64,
            let version = SemanticVersion(String(parts[1].trimmingCharacters(in: " \t")))
        else { return nil }
        self.platform = platform.lowercased()
        self.version = version
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
