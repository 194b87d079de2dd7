import Foundation
import Testing

/// The README and the docs/ pages, read as a newcomer follows them: their links lead to files
/// and headings, the README is short and links every page, each page has a table of contents,
/// their config examples are the real files, and the error list is the code's.
/// (`Tests/system/readme.sh`, run by `make test`, runs their curl lines against the demo server.)
@Suite("README and docs/")
struct ReadmeTests {
    /// The pages a reader follows: the README, DEVELOPERS.md, the starter's README and every docs/ page.
    static func pages() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: (BuildContext.root as NSString).appendingPathComponent("docs"))
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return ["README.md", "DEVELOPERS.md", "Examples/Starter/README.md"] + docs
    }

    /// The docs/ pages alone.
    static func docsPages() throws -> [String] { try pages().filter { $0.hasPrefix("docs/") } }

    /// The lines of `text` outside fenced code blocks.
    static func proseLines(_ text: String) -> [String] {
        var inside = false
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inside.toggle(); continue }
            if !inside { lines.append(String(line)) }
        }
        return lines
    }

    /// GitHub's anchor for a heading: link targets dropped, lowercased, every character but
    /// letters, digits, `-` and `_` removed, spaces turned into `-`.
    static func slug(_ heading: String) -> String {
        let text = heading.replacingOccurrences(of: #"\[([^\]]*)\]\([^)]*\)"#, with: "$1", options: .regularExpression)
        var slug = ""
        for character in text.lowercased() {
            if character.isLetter || character.isNumber || character == "-" || character == "_" {
                slug.append(character)
            } else if character == " " {
                slug.append("-")
            }
        }
        return slug
    }

    /// The anchors of `text`'s headings (a repeated one gets `-1`, `-2`, ... as on GitHub).
    static func anchors(_ text: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var anchors: Set<String> = []
        for line in proseLines(text) {
            guard let hashes = line.firstIndex(where: { $0 != "#" }), hashes > line.startIndex,
                  line[hashes] == " "
            else { continue }
            let base = slug(String(line[hashes...]).trimmingCharacters(in: .whitespaces))
            let count = seen[base, default: 0]
            seen[base] = count + 1
            anchors.insert(count == 0 ? base : "\(base)-\(count)")
        }
        return anchors
    }

    /// Every `](target)` link in `text`'s prose.
    static func links(_ text: String) throws -> [String] {
        let regex = try NSRegularExpression(pattern: #"\]\(([^)\s]+)\)"#)
        let prose = proseLines(text).joined(separator: "\n")
        return regex.matches(in: prose, range: NSRange(prose.startIndex..., in: prose)).compactMap {
            Range($0.range(at: 1), in: prose).map { String(prose[$0]) }
        }
    }

    /// Every `"..._..."` literal of the HTTP parser's errors, every `code: "..."` in the
    /// sources, and the engine's and the state store's error codes: what a client can find in a
    /// problem's `code`.
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
                || relative == "HubEngine/Errors/EngineError.swift" || relative == "HubEngine/State/StateError.swift"
            for regex in everyLiteral ? [snake, labelled] : [labelled] {
                for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    if let range = Range(match.range(at: 1), in: text) { codes.insert(String(text[range])) }
                }
            }
        }
        return codes
    }

    /// The codes in the "Error codes" table of `page`.
    static func codesInTable(_ page: String) throws -> Set<String> {
        let start = try #require(page.range(of: "**Error codes**"))
        let table = page[start.upperBound...]
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

    @Test("docs/API.md's error list is the code's: every code the sources send, nothing more")
    func errorCodes() throws {
        let inSources = try Self.codesInSources()
        let inPage = try Self.codesInTable(try BuildContext.read("docs/API.md"))
        #expect(inSources.contains("invalid_query"))
        #expect(inSources.contains("feature_not_found"))
        #expect(inSources.subtracting(inPage).sorted() == [], "codes missing from docs/API.md")
        #expect(inPage.subtracting(inSources).sorted() == [], "codes the sources never send")
    }

    @Test("every relative link of the README and docs/ leads to a file, and every #anchor to a heading of it")
    func links() throws {
        let root = BuildContext.root as NSString
        var checked = 0
        for page in try Self.pages() {
            let text = try BuildContext.read(page)
            let directory = (page as NSString).deletingLastPathComponent
            for link in try Self.links(text) where !link.contains("://") && !link.hasPrefix("mailto:") {
                checked += 1
                let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let target = parts[0].isEmpty ? page : ((directory as NSString).appendingPathComponent(parts[0]) as NSString).standardizingPath
                let path = root.appendingPathComponent(target)
                #expect(FileManager.default.fileExists(atPath: path), "\(page) links to \(link): no \(target)")
                if parts.count == 2, target.hasSuffix(".md"), FileManager.default.fileExists(atPath: path) {
                    #expect(Self.anchors(try BuildContext.read(target)).contains(parts[1]), "\(page) links to \(link): no such heading")
                }
            }
        }
        #expect(checked > 50)
        #expect(!(try BuildContext.read("README.md")).contains("](DESIGN.md)"))
    }

    @Test("the README stays short and links every docs/ page")
    func readmeIndex() throws {
        let readme = try BuildContext.read("README.md")
        let words = readme.split(whereSeparator: { $0 == " " || $0 == "\n" }).count
        #expect(words <= 2000, "the README has \(words) words; move reference to docs/")
        let linked = Set(try Self.links(readme))
        for page in try Self.docsPages() {
            #expect(linked.contains(page), "the README does not link \(page)")
        }
    }

    @Test("every docs/ page has a table of contents listing each of its sections")
    func tablesOfContents() throws {
        for page in try Self.docsPages() {
            let text = try BuildContext.read(page)
            let lines = Self.proseLines(text)
            let sections = lines.filter { $0.hasPrefix("## ") }.map { String($0.dropFirst(3)) }
            #expect(sections.first == "Contents", "\(page) does not start its sections with ## Contents")
            guard let start = lines.firstIndex(of: "## Contents") else { continue }
            let entries = Set(try Self.links(lines[(start + 1)...].prefix { !$0.hasPrefix("## ") }.joined(separator: "\n")))
            for section in sections.dropFirst() {
                #expect(entries.contains("#" + Self.slug(section)), "\(page): \"\(section)\" is not in its Contents")
            }
        }
    }

    /// Where `text` cites an internal issue by number ("issue 12", "Issue #7", "issues 11 and 17"):
    /// the lines, trimmed. A reader cannot follow those; the page must say what it means instead.
    static func issueCitations(_ text: String) throws -> [String] {
        let regex = try NSRegularExpression(pattern: #"\bissues?\s*#?\d+"#, options: [.caseInsensitive])
        return text.split(separator: "\n").map(String.init).filter {
            regex.firstMatch(in: $0, range: NSRange($0.startIndex..., in: $0)) != nil
        }.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test("no page, deploy/ file or shipped config cites an internal issue number")
    func noIssueNumbers() throws {
        #expect(try Self.issueCitations("the hot reload (issue 12)\nIssue #7 and\nissues 11 and 17\nissue12") ==
            ["the hot reload (issue 12)", "Issue #7 and", "issues 11 and 17", "issue12"])
        #expect(try Self.issueCitations("issued 5 minutes ahead\ncert-manager can issue it\nswift-corelibs-foundation #5472") == [])
        let root = BuildContext.root as NSString
        var files = try Self.pages()
        for directory in ["deploy", "Config"] {
            let enumerator = FileManager.default.enumerator(atPath: root.appendingPathComponent(directory))
            while let relative = enumerator?.nextObject() as? String {
                var isDirectory: ObjCBool = false
                let path = directory + "/" + relative
                if FileManager.default.fileExists(atPath: root.appendingPathComponent(path), isDirectory: &isDirectory),
                   !isDirectory.boolValue, !relative.hasPrefix(".") {
                    files.append(path)
                }
            }
        }
        #expect(files.contains("deploy/nginx/hubserver.conf") && files.contains("Config/server.json"))
        for file in files {
            guard let text = try? BuildContext.read(file) else { continue }  // not text
            #expect(try Self.issueCitations(text) == [], "\(file) cites an internal issue")
        }
    }

    @Test("the anchors are GitHub's")
    func slugs() {
        #expect(Self.slug("Live reload: edit `Config/`, see it without a restart") == "live-reload-edit-config-see-it-without-a-restart")
        #expect(Self.slug("Editor support (`$schema`)") == "editor-support-schema")
        #expect(Self.slug("nginx ([`deploy/nginx/hubserver.conf`](../deploy/nginx/hubserver.conf))") == "nginx-deploynginxhubserverconf")
        #expect(Self.anchors("# A\n## B\n```\n## C\n```\n## B") == ["a", "b", "b-1"])
    }

    /// A JSON example introduced as a file (a line starting "`Config/NAME.json`:") shows that file.
    /// docs/DESIGN.md is left out: its examples state the format, not the demo's files.
    @Test("a JSON example introduced as a Config/ file is that file")
    func configExamples() throws {
        var checked: [String] = []
        for page in try Self.pages() where page != "docs/DESIGN.md" {
            let lines = try BuildContext.read(page).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for (index, line) in lines.enumerated() where line.hasPrefix("`Config/") {
                let path = String(line.dropFirst().prefix { $0 != "`" })
                guard path.hasSuffix(".json"), line.hasPrefix("`\(path)`:"),
                      let open = lines[index...].firstIndex(where: { $0.hasPrefix("```") }),
                      lines[open] == "```json",
                      let close = lines[(open + 1)...].firstIndex(of: "```")
                else { continue }
                let example = lines[(open + 1)..<close].joined(separator: "\n")
                let shown = try JSONSerialization.jsonObject(with: Data(example.utf8)) as? NSDictionary
                let real = try JSONSerialization.jsonObject(with: Data(try BuildContext.read(path).utf8)) as? NSDictionary
                #expect(shown != nil && shown == real, "\(page)'s \(path) is not the file")
                checked.append(path)
            }
        }
        #expect(checked.contains("Config/toggles.json"))
        #expect(checked.contains("Config/schemas/items.json"))
    }
}
