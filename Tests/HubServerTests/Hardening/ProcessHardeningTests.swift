import Foundation
import HubTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The `hub-server` binary with its log pipe closed: logging never ends the process.
@Suite(.serialized) struct ProcessHardeningTests {
    @Test("stderr closed under load: the server keeps answering and counts the lost lines")
    func closedLogPipe() async throws {
        let binary = try #require(ProcessSignalTests.binary, "hub-server should be built next to the tests")
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let (readEnd, writeEnd) = (fds[0], fds[1])
        var environment = ProcessInfo.processInfo.environment
        environment["HUB_HOST"] = "127.0.0.1"
        environment["HUB_PORT"] = "0"
        environment["HUB_LOG_LEVEL"] = "info"
        environment["HUB_DATA_DIR"] = environment["HUB_DATA_DIR"] ?? testDataDirectory
        let process = try ChildProcess(
            executable: binary.path, arguments: ["serve", "--config", ProcessSignalTests.configDirectory.path],
            environment: environment, stderr: writeEnd)
        close(writeEnd)
        defer { process.terminate() }

        // The port from the "listening" line, then the reader goes away.
        let port = try await blocking { () -> Int? in
            var text = ""
            var buffer = [UInt8](repeating: 0, count: 4096)
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                var poller = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 200) > 0 else { continue }
                let count = read(readEnd, &buffer, buffer.count)
                if count <= 0 { return nil }
                text += String(decoding: buffer[0..<count], as: UTF8.self)
                for line in text.split(separator: "\n") {
                    if let port = ProcessSignalTests.listeningPort(String(line)) { return port }
                }
            }
            return nil
        }
        close(readEnd)
        let listening = try #require(port, "no listening line")

        let client = HubClient(port: listening)
        for _ in 0..<200 {
            let response = try await client.view("hub:home")
            #expect(response.status == 200)
            if response.status != 200 { break }
            // A failed request is always logged (the default access log writes errors and slow ones).
            #expect(try await client.view("hub:nothing-here").status == 404)
        }
        #expect(process.isRunning, "the server must outlive its log pipe")
        let metrics = try await client.get("/metrics").text
        let dropped = metrics.split(separator: "\n").first { $0.hasPrefix("hub_log_lines_dropped_total ") }
        let count = dropped.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
        #expect(count > 0, "lines written to the closed pipe are counted")
        process.signal(SIGTERM)
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(60)
        while process.isRunning, clock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!process.isRunning)
        #expect(process.exitedNormally && process.exitCode == 0)
    }
}
