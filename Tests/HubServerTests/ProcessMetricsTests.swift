import Foundation
import HubTestSupport
import Testing

/// The standard process metrics, HELP and TYPE on every family, and
/// `promtool check metrics` (Debian `prometheus`) accepting the exposition.
@Suite("Prometheus exposition: process metrics and promtool")
struct ProcessMetricsTests {
    static func samples(_ text: String) -> [String: Double] {
        var values: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            if parts.count == 2, !parts[0].contains("{") { values[String(parts[0])] = Double(parts[1]) }
        }
        return values
    }

    @Test("process_* metrics are present with plausible values; every family has HELP and TYPE")
    func processMetrics() async throws {
        try await withHub(TestConfig()) { client, _ in
            let response = try await client.get("/metrics")
            #expect(response.status == 200)
            let text = response.text
            let values = Self.samples(text)
            let now = Date().timeIntervalSince1970
            #expect((values["process_cpu_seconds_total"] ?? -1) > 0)
            #expect((values["process_resident_memory_bytes"] ?? 0) > 1_000_000)
            #expect((values["process_virtual_memory_bytes"] ?? 0) >= (values["process_resident_memory_bytes"] ?? .infinity))
            let open = try #require(values["process_open_fds"])
            #expect(open >= 4, "stdio and at least the listener and the epoll descriptor")
            #expect((values["process_max_fds"] ?? 0) >= open)
            let start = try #require(values["process_start_time_seconds"])
            #expect(start <= now + 1 && start > now - 86_400 * 7, "\(start) vs \(now)")
            #expect(text.contains("# TYPE process_cpu_seconds_total counter"))
            #expect(text.contains("# TYPE process_open_fds gauge"))

            // Every sample belongs to a family announced with both HELP and TYPE.
            var help = Set<String>(), type = Set<String>()
            for line in text.split(separator: "\n") {
                let parts = line.split(separator: " ")
                if line.hasPrefix("# HELP "), parts.count >= 3 { help.insert(String(parts[2])) }
                if line.hasPrefix("# TYPE "), parts.count >= 4 { type.insert(String(parts[2])) }
            }
            for line in text.split(separator: "\n") where !line.hasPrefix("#") {
                let name = String(line.prefix { $0 != "{" && $0 != " " })
                let family = ["_bucket", "_sum", "_count"].reduce(name) { name, suffix in
                    name.hasSuffix(suffix) && type.contains(String(name.dropLast(suffix.count))) ? String(name.dropLast(suffix.count)) : name
                }
                #expect(help.contains(family) && type.contains(family), "\(name) has no HELP/TYPE")
            }
        }
    }

    /// `make test` sets HUB_REQUIRE_PROMTOOL=1 (and installs Debian `prometheus`); a bare
    /// `swift test` without promtool skips the check with a note.
    @Test("promtool check metrics accepts /metrics after traffic")
    func promtool() async throws {
        let candidates = ["/usr/bin/promtool", "/usr/local/bin/promtool"]
        guard let promtool = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            let required = ProcessInfo.processInfo.environment["HUB_REQUIRE_PROMTOOL"] == "1"
            #expect(!required, "promtool not found; make test installs Debian prometheus")
            if !required { print("note: promtool not found, check skipped (make test installs it)") }
            return
        }
        try await withStandardHub { client, _, _ in
            _ = try await client.view("hub:remote")
            _ = try await client.view("hub:fail")
            _ = try await client.get("/nowhere")
            let exposition = try await client.get("/metrics").body
            let result: (status: Int32, output: String) = try await blocking {
                let input = Pipe(), output = Pipe()
                let process = try ChildProcess(
                    executable: promtool, arguments: ["check", "metrics"], environment: ProcessInfo.processInfo.environment,
                    stdin: input.fileHandleForReading.fileDescriptor, stdout: output.fileHandleForWriting.fileDescriptor,
                    stderr: output.fileHandleForWriting.fileDescriptor)
                try input.fileHandleForReading.close()
                try output.fileHandleForWriting.close()
                input.fileHandleForWriting.write(Data(exposition))
                try input.fileHandleForWriting.close()
                let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                return (process.exitedNormally ? process.exitCode : -1, text)
            }
            #expect(result.status == 0, "promtool: \(result.output)")
            #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "no lint findings: \(result.output)")
        }
    }
}
