import Foundation
import Testing

/// The README, read as a newcomer follows it: its links lead to files, its config examples are
/// the real files, and its error list is the code's. (`Tests/scripts/readme.sh`, run by
/// `make test`, runs its curl lines against the demo server.)
@Suite("README")
struct ReadmeTests {
    static func readme() throws -> String { try BuildContext.read("README.md") }

    /// Every `"..._..."` literal of the HTTP parser's errors, every `code: "..."` in the
    /// sources, and the engine's error codes: what a client can find in a problem's `code`.
    static func codesInSources() throws -> Set<String> {
        var codes: Set<String> = []
        let snake = try NSRegularExpression(pattern: #""([a-z]+(?:_[a-z]+)+)""#)
        let labelled = try NSRegularExpression(pattern: #"code: "([a-z_]+)""#)
        let root = BuildContext.root as NSString
        let enumerator = FileManager.default.enumerator(atPath: root.appendingPathComponent("Sources"))
        while let relative = enumerator?.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            let text = try String(contentsOfFile: root.appendingPathComponent("Sources/" + relative), encoding: .utf8)
            let everyLiteral = relative.hasPrefix("HubHTTP/Parsing/") || relative.hasPrefix("HubHTTP/Errors/")
                || relative == "HubEngine/Errors/EngineError.swift"
            for regex in everyLiteral ? [snake, labelled] : [labelled] {
                for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    if let range = Range(match.range(at: 1), in: text) { codes.insert(String(text[range])) }
                }
            }
        }
        return codes
    }

    /// The codes in the README's "Error codes" table.
    static func codesInReadme(_ readme: String) throws -> Set<String> {
        let start = try #require(readme.range(of: "**Error codes**"))
        let table = readme[start.upperBound...].prefix { _ in true }
            .split(separator: "\n", omittingEmptySubsequences: false).dropFirst(2)
            .prefix { $0.hasPrefix("|") }
        var codes: Set<String> = []
        for row in table.dropFirst(2) {
            let first = row.split(separator: "|").first ?? ""
            for piece in first.split(separator: "`") where piece.allSatisfy({ $0.isLowercase || $0 == "_" }) && !piece.isEmpty {
                codes.insert(String(piece))
            }
        }
        return codes
    }

    @Test("the error list is the code's: every code the sources send, nothing more")
    func errorCodes() throws {
        let inSources = try Self.codesInSources()
        let inReadme = try Self.codesInReadme(try Self.readme())
        #expect(inSources.contains("invalid_query"))
        #expect(inSources.contains("feature_not_found"))
        #expect(inSources.subtracting(inReadme).sorted() == [], "codes missing from the README")
        #expect(inReadme.subtracting(inSources).sorted() == [], "codes the sources never send")
    }

    @Test("every relative link points to a file in the repository")
    func links() throws {
        let readme = try Self.readme()
        let regex = try NSRegularExpression(pattern: #"\]\(([^)#\s]+)\)"#)
        var checked = 0
        for match in regex.matches(in: readme, range: NSRange(readme.startIndex..., in: readme)) {
            guard let range = Range(match.range(at: 1), in: readme) else { continue }
            let target = String(readme[range])
            if target.contains("://") { continue }
            checked += 1
            let path = (BuildContext.root as NSString).appendingPathComponent(target)
            #expect(FileManager.default.fileExists(atPath: path), "README links to \(target)")
        }
        #expect(checked > 0)
        #expect(!readme.contains("DESIGN.md") || readme.contains("docs/DESIGN.md"))
    }

    @Test("a JSON example introduced as a Config/ file is that file")
    func configExamples() throws {
        let readme = try Self.readme()
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var checked: [String] = []
        for (index, line) in lines.enumerated() where line.hasPrefix("`Config/") {
            let path = String(line.dropFirst().prefix { $0 != "`" })
            guard path.hasSuffix(".json"),
                  let open = lines[index...].firstIndex(where: { $0.hasPrefix("```") }),
                  lines[open] == "```json",
                  let close = lines[(open + 1)...].firstIndex(of: "```")
            else { continue }
            let example = lines[(open + 1)..<close].joined(separator: "\n")
            let shown = try JSONSerialization.jsonObject(with: Data(example.utf8)) as? NSDictionary
            let real = try JSONSerialization.jsonObject(with: Data(try BuildContext.read(path).utf8)) as? NSDictionary
            #expect(shown != nil && shown == real, "README's \(path) is not the file")
            checked.append(path)
        }
        #expect(checked.contains("Config/toggles.json"))
        #expect(checked.contains("Config/schemas/items.json"))
    }
}
