import Foundation
import HubSync
import HubTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The `hub-server` binary itself: SIGTERM and SIGINT drain and exit 0 (Kubernetes sends
/// SIGTERM; a signal that went unnoticed would leave the pod to be killed after its grace
/// period, dropping what it had accepted).
@Suite(.serialized) struct ProcessSignalTests {
    /// `hub-server`, built next to the test bundle (`swift build --build-tests` builds every product).
    static var binary: URL? {
        let bundleDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidate = bundleDirectory.appendingPathComponent("hub-server")
        return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
    }

    static let configDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Config")

    /// Lines of a pipe, read on a thread of their own.
    /// The child's output lines, read by a thread of its own until end of file.
    final class LineReader: Sendable {
        private let state = Locked((lines: [String](), finished: false))

        init(_ handle: FileHandle) {
            let thread = Thread { [self] in
                var pending = Data()
                while true {
                    let data = handle.availableData
                    if data.isEmpty { break }
                    pending.append(data)
                    while let newline = pending.firstIndex(of: 0x0A) {
                        let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                        pending.removeSubrange(pending.startIndex...newline)
                        state.withLock { $0.lines.append(line) }
                    }
                }
                state.withLock { $0.finished = true }
            }
            thread.start()
        }

        var all: [String] { state.withLock { $0.lines } }

        /// Whether the reader has reached end of file (the child closed its output).
        var finished: Bool { state.withLock { $0.finished } }
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func signalDrainsAndExitsZero(signalNumber: Int32) async throws {
        let (process, reader) = try Self.serve(["--config", Self.configDirectory.path])
        defer { process.terminate() }

        // The port from the "listening" log line.
        var port: Int?
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(60)
        while port == nil, clock.now < deadline, process.isRunning {
            port = reader.all.lazy.compactMap(Self.listeningPort).first
            if port == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        let listening = try #require(port, "no listening line: \(reader.all)")

        // Serve a request on a kept-alive connection, then signal while it is open.
        let connection = try LoopbackClient(port: listening)
        let response = try await blocking {
            try connection.send(Array("GET /view?uri=hub:home HTTP/1.1\r\nHost: t\r\n\r\n".utf8))
            return try connection.readResponse(method: "GET")
        }
        #expect(response.status == 200)
        process.signal(signalNumber)

        while process.isRunning, clock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(!process.isRunning, "hub-server still running after signal \(signalNumber)")
        guard !process.isRunning else { return }
        #expect(process.exitedNormally)
        #expect(process.exitCode == 0)
        // The child has exited; its last lines may still be on their way through the pipe.
        #expect(await eventually { reader.finished })
        let lines = reader.all
        #expect(lines.contains { $0.contains("\"msg\":\"draining\"") })
        #expect(lines.contains { $0.contains("\"msg\":\"stopped\"") })
        connection.close()
    }

    @Test("SIGHUP reloads the config (with watching off), and the server keeps serving")
    func hangupReloads() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-sighup-\(UUID().uuidString)").path
        try FileManager.default.copyItem(atPath: Self.configDirectory.path, toPath: directory)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (process, reader) = try Self.serve(["--no-watch", "--config", directory])
        defer { process.terminate() }
        var port: Int?
        #expect(await eventually { port = reader.all.lazy.compactMap(Self.listeningPort).first; return port != nil })
        let client = HubClient(port: try #require(port, "no listening line: \(reader.all)"))
        #expect(try await client.view("hub:home").text.contains("Recently played"))

        // The demo's strings are in its catalogs (strings/en.json: the English default).
        let home = directory + "/strings/en.json"
        let edited = try String(contentsOfFile: home, encoding: .utf8).replacingOccurrences(of: "Recently played", with: "Played lately")
        try Data(edited.utf8).write(to: URL(fileURLWithPath: home))
        // Watching is off: only the signal reloads.
        process.signal(SIGHUP)
        #expect(try await eventually { try await client.view("hub:home").text.contains("Played lately") })
        // The new view can be served before the reload's log line has reached the reader.
        #expect(await eventually { reader.all.contains { $0.contains("\"msg\":\"config reloaded\"") && $0.contains("\"trigger\":\"SIGHUP\"") } })
        #expect(process.isRunning)
        #expect(try await client.metric(#"hub_config_reloads_total{result="success"}"#) == 1)
    }

    /// `hub-server serve ARGUMENTS` on 127.0.0.1, an ephemeral port, info logs; its output lines.
    static func serve(_ arguments: [String], environment extra: [String: String] = [:]) throws -> (ChildProcess, LineReader) {
        let binary = try #require(Self.binary, "hub-server should be built next to \(CommandLine.arguments[0])")
        var environment = ProcessInfo.processInfo.environment
        environment["HUB_HOST"] = "127.0.0.1"
        environment["HUB_PORT"] = "0"
        environment["HUB_LOG_LEVEL"] = "info"
        // A data directory of the child's own: the default (the working directory's `.hub-data`)
        // would share one state database with every other test server started without one. A
        // caller's HUB_DATA_DIR wins (a restart that must find the first run's state).
        environment["HUB_DATA_DIR"] = FileManager.default.temporaryDirectory
            .appendingPathComponent("hub-child-data-\(UUID().uuidString)").path
        environment.merge(extra) { _, new in new }
        let output = Pipe()
        let process = try ChildProcess(
            executable: binary.path, arguments: ["serve"] + arguments, environment: environment,
            stdout: output.fileHandleForWriting.fileDescriptor, stderr: output.fileHandleForWriting.fileDescriptor)
        try output.fileHandleForWriting.close()
        return (process, LineReader(output.fileHandleForReading))
    }

    static func listeningPort(_ line: String) -> Int? {
        guard line.contains("\"msg\":\"listening\""), let range = line.range(of: "\"port\":") else { return nil }
        return Int(line[range.upperBound...].prefix { $0.isNumber })
    }
}
