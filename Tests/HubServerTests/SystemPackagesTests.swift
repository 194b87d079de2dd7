import Foundation
import Testing

/// The Debian packages a build of HubServer (or of a package that depends on it) needs, said
/// once: the `.apt([...])` providers of Package.swift's system libraries plus `pkg-config`. The
/// README, docs/EMBEDDING.md and the starter's README each give the same `apt-get install` line,
/// and the Makefile's `deps` installs every one of them.
@Suite("System packages")
struct SystemPackagesTests {
    static func read(_ path: String) throws -> String {
        try String(contentsOfFile: (BuildContext.root as NSString).appendingPathComponent(path), encoding: .utf8)
    }

    /// The packages Package.swift's system libraries name, and pkg-config (which finds them).
    static func buildPackages() throws -> [String] {
        let manifest = try read("Package.swift")
        var packages: [String] = []
        var rest = manifest[...]
        while let start = rest.range(of: ".apt([") {
            let list = rest[start.upperBound...].prefix { $0 != "]" }
            packages += list.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \"\n")) }
            rest = rest[start.upperBound...]
        }
        return packages + ["pkg-config"]
    }

    @Test("README, docs/EMBEDDING.md and the starter's README give one apt-get line: Package.swift's system packages")
    func oneList() throws {
        let expected = try Self.buildPackages()
        #expect(expected.contains("libssl-dev") && expected.contains("libsqlite3-dev") && expected.contains("libpq-dev"))
        for page in ["README.md", "docs/EMBEDDING.md", "Examples/Starter/README.md"] {
            let text = try Self.read(page)
            let start = try #require(text.range(of: "`apt-get install "), "\(page) gives no apt-get install line")
            let listed = text[start.upperBound...].prefix { $0 != "`" }.split(separator: " ").map(String.init)
            #expect(Set(listed) == Set(expected), "\(page) lists \(listed), Package.swift needs \(expected)")
            #expect(listed.count == Set(listed).count, "\(page) lists a package twice")
        }
        let makefile = try Self.read("Makefile")
        let aptLine = try #require(makefile.split(separator: "\n").first { $0.hasPrefix("APT_PACKAGES") })
        for package in expected { #expect(aptLine.contains(package), "make deps does not install \(package)") }
    }
}
