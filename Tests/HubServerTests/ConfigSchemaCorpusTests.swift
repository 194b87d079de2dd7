import Foundation
import HubModel
import HubServer
import Testing

/// The loader judges every case of `Tests/system/contracts/config-cases.json` as the
/// JSON Schemas in docs/schema/ do (`Tests/system/contracts/config_schemas.py`, run by
/// `make test-contracts`, checks the schema side over the same file, so the two cannot drift).
@Suite("Config schemas: the corpus the loader and the schemas share")
struct ConfigSchemaCorpusTests {
    /// One case: `file` (relative to the config directory) written over the base config.
    struct Case: Sendable, CustomStringConvertible {
        let label: String
        let file: String
        let json: JSONValue
        /// The loader's issue path (invalid and beyond-schema cases).
        let path: String?
        /// A valid case the loader warns about (an unknown key).
        let warnings: Bool

        var description: String { "\(label) (\(file))" }
    }

    /// The parsed corpus, or nil when the file is missing or broken (the first test says so).
    struct Corpus: Sendable {
        let base: [(String, JSONValue)]
        let valid: [Case]
        let invalid: [Case]
        let beyondSchema: [Case]

        static let shared: Corpus? = try? load()

        static func load() throws -> Corpus {
            let text = try BuildContext.read("Tests/system/contracts/config-cases.json")
            let root = try JSONParser().parse(Array(text.utf8))
            func cases(_ key: String) -> [Case] {
                (root[key]?.arrayValue ?? []).map { value in
                    Case(
                        label: value["name"]?.stringValue ?? value["why"]?.stringValue ?? value["source"]?.stringValue ?? "?",
                        file: value["file"]?.stringValue ?? "", json: value["json"] ?? .null, path: value["path"]?.stringValue,
                        warnings: value["warnings"]?.boolValue ?? false)
                }
            }
            let base = root["base"]?.objectValue.map { Array($0) } ?? []
            return Corpus(base: base, valid: cases("valid"), invalid: cases("invalid"), beyondSchema: cases("beyondSchema"))
        }
    }

    /// Writes the base config with `file` added or replaced; returns the directory.
    static func write(_ replacement: Case? = nil) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-schema-\(UUID().uuidString)").path
        var files = Corpus.shared?.base ?? []
        if let replacement {
            files.removeAll { $0.0 == replacement.file }
            files.append((replacement.file, replacement.json))
        }
        for (path, value) in files {
            let full = (directory as NSString).appendingPathComponent(path)
            try FileManager.default.createDirectory(
                atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(value.jsonBytes).write(to: URL(fileURLWithPath: full))
        }
        return directory
    }

    /// The loader's verdict: the configuration, or every issue it found.
    static func load(_ replacement: Case? = nil) throws -> Result<LoadedConfiguration, ConfigurationError> {
        let directory = try write(replacement)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            return .success(try ConfigLoader(environment: [:]).load(directory: directory))
        } catch {
            return .failure(error)
        }
    }

    @Test("the corpus is there: a base, valid cases, invalid cases, beyond-schema cases")
    func corpusLoads() throws {
        let corpus = try Corpus.load()
        #expect(corpus.base.contains { $0.0 == "server.json" })
        #expect(corpus.valid.count >= 10 && corpus.invalid.count >= 40 && !corpus.beyondSchema.isEmpty)
        #expect(corpus.invalid.allSatisfy { $0.path != nil })
        guard case .success(let loaded) = try Self.load() else {
            Issue.record("the base config must load")
            return
        }
        #expect(loaded.warnings.isEmpty, "\(loaded.warnings)")
    }

    @Test("valid cases load; those that expect it warn about an unknown key in their file, the others warn about nothing",
          arguments: 0..<(Corpus.shared?.valid.count ?? 0))
    func validCase(index: Int) throws {
        let testCase = try #require(Corpus.shared?.valid[index])
        switch try Self.load(testCase) {
        case .failure(let error):
            Issue.record("\(testCase) is refused: \(error)")
        case .success(let loaded):
            let warnings = loaded.warnings.filter { $0.file == testCase.file }
            if testCase.warnings {
                #expect(warnings.contains { $0.message.hasPrefix("unknown key") }, "\(testCase): \(loaded.warnings)")
            } else {
                #expect(loaded.warnings.isEmpty, "\(testCase): \(loaded.warnings)")
            }
        }
    }

    @Test("invalid cases are refused with an error at the case's path in its file",
          arguments: 0..<(Corpus.shared?.invalid.count ?? 0))
    func invalidCase(index: Int) throws {
        let testCase = try #require(Corpus.shared?.invalid[index])
        try Self.expectRefused(testCase)
    }

    @Test("beyond-schema cases (another file, compared values) are refused by the loader alone",
          arguments: 0..<(Corpus.shared?.beyondSchema.count ?? 0))
    func beyondSchemaCase(index: Int) throws {
        let testCase = try #require(Corpus.shared?.beyondSchema[index])
        try Self.expectRefused(testCase)
    }

    static func expectRefused(_ testCase: Case, sourceLocation: SourceLocation = #_sourceLocation) throws {
        guard case .failure(let error) = try load(testCase) else {
            Issue.record("\(testCase) is accepted", sourceLocation: sourceLocation)
            return
        }
        let errors = error.issues.filter { $0.severity == .error }
        #expect(
            errors.contains { $0.file == testCase.file && $0.path == testCase.path }, "\(testCase): \(errors)",
            sourceLocation: sourceLocation)
        #expect(errors.allSatisfy { $0.file == testCase.file }, "only the case's file is wrong: \(errors)", sourceLocation: sourceLocation)
    }
}
