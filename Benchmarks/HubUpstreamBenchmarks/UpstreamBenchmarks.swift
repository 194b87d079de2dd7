// HubUpstream benchmarks against a local loopback upstream (no network).
// Run: swift run -c release HubUpstreamBenchmarks
import Foundation
import HubUpstream

@main
struct UpstreamBenchmarks {
    static let body = Array(#"{"ok":true}"#.utf8)

    static func main() async throws {
        try await overlap()
        try await connectionCap()
        try await warmOverhead()
    }

    /// Three requests answered after 100 ms each, issued concurrently: wall time.
    static func overlap() async throws {
        let upstream = try BenchUpstream { _ in .respond(status: 200, body: body, delay: .milliseconds(100)) }
        let client = CurlUpstreamClient()
        defer { client.shutdown(); upstream.stop() }
        var times: [Double] = []
        for round in 0..<5 {
            let started = ContinuousClock.now
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<3 {
                    group.addTask {
                        _ = try await client.sendExpectingSuccess(UpstreamRequest(url: upstream.url("/r\(round)/\(index)")))
                    }
                }
                try await group.waitForAll()
            }
            times.append(milliseconds(started.duration(to: .now)))
        }
        print("overlap: 3 concurrent requests x 100 ms upstream -> wall ms per round: "
            + times.map { String(format: "%.1f", $0) }.joined(separator: ", "))
    }

    /// 1000 concurrent distinct requests to one host: connections opened stay within the cap.
    static func connectionCap() async throws {
        let upstream = try BenchUpstream { _ in .respond(status: 200, body: body, delay: .milliseconds(2)) }
        let configuration = UpstreamConfiguration()
        let client = CurlUpstreamClient(configuration: configuration)
        defer { client.shutdown(); upstream.stop() }
        let started = ContinuousClock.now
        let failures = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<1000 {
                group.addTask {
                    let request = UpstreamRequest(url: upstream.url("/c/\(index)"), timeout: .seconds(30))
                    return (try? await client.sendExpectingSuccess(request)) == nil
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        let elapsed = milliseconds(started.duration(to: .now))
        print("connection cap: 1000 concurrent requests, maxConnectionsPerHost \(configuration.maxConnectionsPerHost) -> "
            + "upstream accepted \(upstream.acceptedConnections) connections, max \(upstream.maxConcurrentRequests) concurrent, "
            + "curl opened \(client.statistics.connectionsOpened), failures \(failures), \(String(format: "%.0f", elapsed)) ms")
    }

    /// Sequential requests on a warm connection to an upstream that answers at once.
    static func warmOverhead() async throws {
        let upstream = try BenchUpstream { _ in .respond(status: 200, body: body) }
        let client = CurlUpstreamClient()
        defer { client.shutdown(); upstream.stop() }
        for (label, policy) in [("bypass", UpstreamRequest.CachePolicy.bypass),
                                ("cache miss (useProtocol, uncacheable)", .useProtocol)] {
            for index in 0..<200 { _ = try await client.send(UpstreamRequest(url: upstream.url("/w/\(index)"), cachePolicy: policy)) }
            var samples: [Double] = []
            for index in 0..<2000 {
                let request = UpstreamRequest(url: upstream.url("/w/\(index)"), cachePolicy: policy)
                let started = ContinuousClock.now
                _ = try await client.send(request)
                samples.append(microseconds(started.duration(to: .now)))
            }
            report("warm fetch \(label)", samples)
        }
        let cached = try BenchUpstream { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=600")], body: body) }
        defer { cached.stop() }
        _ = try await client.send(UpstreamRequest(url: cached.url("/hit")))
        var samples: [Double] = []
        for _ in 0..<2000 {
            let started = ContinuousClock.now
            _ = try await client.send(UpstreamRequest(url: cached.url("/hit")))
            samples.append(microseconds(started.duration(to: .now)))
        }
        report("cache hit", samples)
        print("connections opened for \(client.statistics.requestsStarted) transfers: \(client.statistics.connectionsOpened)")
    }

    static func report(_ label: String, _ samples: [Double]) {
        let sorted = samples.sorted()
        let median = sorted[sorted.count / 2], p99 = sorted[sorted.count * 99 / 100]
        print("\(label): median \(String(format: "%.1f", median)) us, p99 \(String(format: "%.1f", p99)) us over \(sorted.count) requests")
    }

    static func milliseconds(_ duration: Duration) -> Double { microseconds(duration) / 1000 }

    static func microseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1_000_000 + Double(attoseconds) / 1_000_000_000_000
    }
}
