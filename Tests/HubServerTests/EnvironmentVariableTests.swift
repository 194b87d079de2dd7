import Foundation
import HubServer
import HubTestSupport
import Testing

/// `hub-server serve --help` lists every environment variable the server reads, from one list
/// (``EnvironmentVariable/all``), and says where each way of running listens.
@Suite("Environment variables")
struct EnvironmentVariableTests {
    /// Every `"HUB_..."` string literal of the sources: the names the code reads.
    static func namesInSources() throws -> Set<String> {
        let literal = try NSRegularExpression(pattern: #""(HUB_[A-Z_]+)""#)
        let sources = (BuildContext.root as NSString).appendingPathComponent("Sources")
        var names: Set<String> = []
        let enumerator = FileManager.default.enumerator(atPath: sources)
        while let relative = enumerator?.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            let text = try String(contentsOfFile: (sources as NSString).appendingPathComponent(relative), encoding: .utf8)
            for match in literal.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(match.range(at: 1), in: text) { names.insert(String(text[range])) }
            }
        }
        return names
    }

    @Test("the list holds every HUB_ variable the sources read, once each")
    func listIsComplete() throws {
        let listed = EnvironmentVariable.all.map(\.name)
        #expect(Set(listed).count == listed.count)
        let read = try Self.namesInSources()
        #expect(read.contains("HUB_HOST") && read.contains("HUB_CONFIG"))
        #expect(read.subtracting(listed).sorted() == [], "read but not listed in EnvironmentVariable.all")
        #expect(Set(listed).subtracting(read).sorted() == [], "listed but never read")
    }

    @Test("docs/CONFIG.md lists every variable")
    func documented() throws {
        let page = try BuildContext.read("docs/CONFIG.md")
        for variable in EnvironmentVariable.all {
            #expect(page.contains("| `\(variable.name)` |"), "\(variable.name) is not in docs/CONFIG.md's table")
        }
    }

    @Test("hub-server serve --help lists them, one a line within 80 columns, and says where it listens")
    func serveHelp() throws {
        let binary = try #require(ProcessSignalTests.binary, "hub-server should be built next to the tests")
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let process = try ChildProcess(
            executable: binary.path, arguments: ["serve", "--help"], environment: ["PATH": "/usr/bin:/bin", "COLUMNS": "80"],
            stdout: fds[1], stderr: fds[1])
        close(fds[1])
        let output = String(decoding: FileHandle(fileDescriptor: fds[0], closeOnDealloc: true).readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.exitedNormally && process.exitCode == 0, "\(output)")
        let lines = output.split(separator: "\n").map(String.init)
        for variable in EnvironmentVariable.all {
            let line = lines.first { $0.hasPrefix("  \(variable.name) ") }
            #expect(line?.hasSuffix(variable.summary) == true, "\(variable.name) in:\n\(output)")
            #expect((line?.count ?? 0) <= 80, "\(line ?? variable.name) is wider than 80 columns")
        }
        #expect(output.contains("127.0.0.1:8080") && output.contains("HUB_HOST=0.0.0.0"), "\(output)")
    }
}
