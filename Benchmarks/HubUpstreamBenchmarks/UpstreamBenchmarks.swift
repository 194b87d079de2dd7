// HubUpstream benchmarks against a local loopback upstream (no network).
// Run: swift run -c release HubUpstreamBenchmarks
import Foundation
import Glibc
import HubPrimitives
import HubTestSupport
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
        let upstream = try TestUpstream { _ in .respond(status: 200, body: body, delay: .milliseconds(100)) }
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
        let upstream = try TestUpstream { _ in .respond(status: 200, body: body, delay: .milliseconds(2)) }
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
        let upstream = try TestUpstream { _ in .respond(status: 200, body: body) }
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
        report("baseline: blocking socket GET, same upstream (the floor)", rawSocketRoundTrips(port: upstream.port, count: 2000))
        let cached = try TestUpstream { _ in .respond(status: 200, headers: [("Cache-Control", "max-age=600")], body: body) }
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

    /// Sequential keep-alive GETs over one blocking socket, no curl: what the upstream and
    /// loopback cost by themselves.
    static func rawSocketRoundTrips(port: Int, count: Int) -> [Double] {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return [0] }
        let request = Array("GET /raw HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: */*\r\n\r\n".utf8)
        var buffer = [UInt8](repeating: 0, count: 4096)
        var samples: [Double] = []
        for _ in 0..<count {
            let started = ContinuousClock.now
            _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            var received: [UInt8] = []
            // The fixture answers with "Content-Length: 11" and an 11-byte body.
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { return samples }
                received += buffer[..<n]
                if let end = received.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound, received.count >= end + body.count { break }
            }
            samples.append(microseconds(started.duration(to: .now)))
        }
        return samples
    }

    static func report(_ label: String, _ samples: [Double]) {
        let sorted = samples.sorted()
        let median = sorted[sorted.count / 2], p99 = sorted[sorted.count * 99 / 100]
        print("\(label): median \(String(format: "%.1f", median)) us, p99 \(String(format: "%.1f", p99)) us over \(sorted.count) requests")
    }

    static func milliseconds(_ duration: Duration) -> Double { duration.inMilliseconds }

    static func microseconds(_ duration: Duration) -> Double { duration.inMilliseconds * 1000 }
}
