import Foundation
import Testing

/// docs/DESIGN.md's module table is Package.swift's: every Swift target (benchmarks and tests
/// aside) has a row, and the row's imports are exactly the target's dependencies.
@Suite("docs/DESIGN.md's module table")
struct DesignDocumentTests {
    /// Each library and executable target of Package.swift (not under Benchmarks/) with its
    /// dependencies (target names, and product names for packages).
    static func targets() throws -> [String: Set<String>] {
        let manifest = try BuildContext.read("Package.swift")
        let pattern = try NSRegularExpression(
            pattern: #"\.(?:target|executableTarget)\(\s*name:\s*"([^"]+)"(.*?)swiftSettings"#, options: [.dotMatchesLineSeparators])
        let dependency = try NSRegularExpression(pattern: #"\.product\(name:\s*"([^"]+)"[^)]*\)|"([A-Za-z-]+)""#)
        var targets: [String: Set<String>] = [:]
        let text = manifest as NSString
        for match in pattern.matches(in: manifest, range: NSRange(location: 0, length: text.length)) {
            let name = text.substring(with: match.range(at: 1))
            var body = text.substring(with: match.range(at: 2))
            guard !body.contains("path: \"Benchmarks") else { continue }
            if let resources = body.range(of: "resources:") { body = String(body[..<resources.lowerBound]) }
            guard let list = body.range(of: "dependencies:") else {
                targets[name] = []
                continue
            }
            let rest = String(body[list.upperBound...]) as NSString
            var names = Set<String>()
            for found in dependency.matches(in: rest as String, range: NSRange(location: 0, length: rest.length)) {
                if found.range(at: 1).location != NSNotFound {
                    names.insert(rest.substring(with: found.range(at: 1)))
                } else if found.range(at: 2).location != NSNotFound {
                    names.insert(rest.substring(with: found.range(at: 2)))
                }
            }
            // A product's package name is not a module.
            targets[name] = names.filter { !$0.contains("-") }
        }
        return targets
    }

    /// The table's rows: module name to its imports column.
    static func rows() throws -> [String: Set<String>] {
        let page = try BuildContext.read("docs/DESIGN.md")
        guard let start = page.range(of: "## Modules") else { return [:] }
        var rows: [String: Set<String>] = [:]
        for line in page[start.upperBound...].split(separator: "\n") {
            if line.hasPrefix("## ") { break }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 5, cells[1].hasPrefix("`") else { continue }
            let name = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let imports = cells[3] == "(none)" ? [] : cells[3].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            rows[name] = Set(imports)
        }
        return rows
    }

    @Test("every target of Package.swift has a row whose imports are its dependencies, and no row names a target that is not there")
    func tableMatchesManifest() throws {
        let targets = try Self.targets()
        let rows = try Self.rows()
        #expect(targets.count >= 14, "\(targets.keys.sorted())")
        for (name, dependencies) in targets {
            #expect(rows[name] == dependencies, "\(name): Package.swift \(dependencies.sorted()), DESIGN.md \(rows[name].map { $0.sorted() } ?? [])")
        }
        #expect(Set(rows.keys) == Set(targets.keys), "rows \(rows.keys.sorted()) vs targets \(targets.keys.sorted())")
    }
}
