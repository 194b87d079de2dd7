/// A semantic version as `Hub-Client` and kill switches write it: `MAJOR[.MINOR[.PATCH]]`, an
/// optional `-prerelease` and an ignored `+build`.
package struct SemanticVersion: Sendable, Equatable, Comparable {
    /// Exactly three numbers: major, minor, patch.
    package let numbers: [Int]
    package let isPrerelease: Bool

    /// Parses `5`, `5.2`, `5.2.1`, `5.2.1-beta.1`, `5.2.1+42`; `nil` for anything else.
    package init?(_ text: String) {
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

    package static func < (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool {
        if lhs.numbers != rhs.numbers { return lhs.numbers.lexicographicallyPrecedes(rhs.numbers) }
        return lhs.isPrerelease && !rhs.isPrerelease
    }
}
