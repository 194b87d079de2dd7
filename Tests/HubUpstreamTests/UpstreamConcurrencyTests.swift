import Foundation
import HubTestSupport
@testable import HubUpstream
import Testing

/// Coalescing, connection reuse, per-host connection cap, overlap and cancellation.
@Suite struct UpstreamConcurrencyTests {
    static let body = Array(#"{"ok":true}"#.utf8)

    @Test func concurrentIdenticalGETsShareOneUpstreamRequest() async throws {
        // The upstream answers once all ten callers wait on the one flight (not after a delay).
        let gate = ThreadGate()
        defer { gate.open() }
        // A generous timeout: the flight spans the whole test, whose steps can take longer than
        // the default 2 s on a loaded machine (this is not a timeout test).
        let generous = UpstreamConfiguration(timeout: .seconds(60), connectTimeout: .seconds(30))
        try await withUpstream(configuration: generous, handler: { _ in gate.wait(); return .respond(status: 200, body: Self.body) }) {
            upstream, client in
            let tasks = (0..<10).map { _ in
                Task {
                    let response = try await client.send(UpstreamRequest(url: upstream.url("/shared")))
                    #expect(response.body == Self.body)
                    return response.cacheStatus
                }
            }
            #expect(await waitUntil { client.coalescingWaiters == 10 })
            gate.open()
            var statuses: [UpstreamCacheStatus] = []
            for task in tasks { statuses.append(try await task.value) }
            #expect(statuses.count == 10)
            #expect(statuses.allSatisfy { $0 == .miss })
            #expect(upstream.requestCount == 1)
            #expect(client.statistics.requestsStarted == 1)
            #expect(client.statistics.coalescedRequests == 9)
        }
    }

    @Test func aShorterDeadlineNeverWaitsOnALongerFlight() async throws {
        try await withUpstream(handler: { _ in .respond(status: 200, body: Self.body, delay: .seconds(1)) }) { upstream, client async throws in
            let leader = Task { try await client.send(UpstreamRequest(url: upstream.url("/shared"), timeout: .seconds(10))) }
            #expect(await waitUntil { upstream.requestCount == 1 }, "the leader's flight reached the upstream")
            let error = await #expect(throws: UpstreamError.self) {
                try await client.send(UpstreamRequest(url: upstream.url("/shared"), timeout: .milliseconds(200)))
            }
            // Had it joined the leader's flight it would have waited 1 s and got a 200.
            #expect(error?.isTimeout == true)
            #expect(try await leader.value.status == 200)
        }
    }

    @Test func cancellingOneCoalescedWaiterLeavesTheOthers() async throws {
        // The upstream holds its answer until the test has cancelled the leader.
        let gate = ThreadGate()
        defer { gate.open() }
        // A generous timeout: the flight spans the whole test, whose steps can take longer than
        // the default 2 s on a loaded machine (this is not a timeout test).
        let generous = UpstreamConfiguration(timeout: .seconds(60), connectTimeout: .seconds(30))
        try await withUpstream(configuration: generous, handler: { _ in gate.wait(); return .respond(status: 200, body: Self.body) }) {
            upstream, client in
            let request = UpstreamRequest(url: upstream.url("/shared"))
            let leader = Task { try await client.send(request) }
            #expect(await waitUntil { client.coalescingWaiters == 1 })
            let follower = Task { try await client.send(request) }
            #expect(await waitUntil { client.coalescingWaiters == 2 })
            leader.cancel()
            await #expect(throws: CancellationError.self) { try await leader.value }
            gate.open()
            let response = try await follower.value
            #expect(response.body == Self.body)
            #expect(upstream.requestCount == 1)
        }
    }

    @Test func sequentialRequestsReuseOneConnection() async throws {
        try await withUpstream(handler: { _ in .respond(status: 200, body: Self.body) }) { upstream, client in
            for index in 0..<100 {
                let response = try await client.send(UpstreamRequest(url: upstream.url("/item/\(index)")))
                #expect(response.status == 200)
            }
            #expect(upstream.requestCount == 100)
            #expect(upstream.acceptedConnections <= 3)
            #expect(client.statistics.connectionsOpened == upstream.acceptedConnections)
        }
    }

    @Test func connectionsPerHostAreCapped() async throws {
        let configuration = UpstreamConfiguration(maxConnectionsPerHost: 2)
        try await withUpstream(configuration: configuration, handler: { _ in
            .respond(status: 200, body: Self.body, delay: .milliseconds(50))
        }) { upstream, client in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        try await client.send(UpstreamRequest(url: upstream.url("/\(index)"), timeout: .seconds(10))).status
                    }
                }
                for try await status in group { #expect(status == 200) }
            }
            #expect(upstream.requestCount == 12)
            #expect(upstream.acceptedConnections <= 2)
            #expect(upstream.maxConcurrentRequests <= 2)
        }
    }

    @Test func manyConcurrentRequestsQueueWithinTheCapAndAllComplete() async throws {
        let configuration = UpstreamConfiguration(maxConnectionsPerHost: 4)
        try await withUpstream(configuration: configuration, handler: { request in
            .respond(status: 200, body: Array(request.path.utf8))
        }) { upstream, client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let request = UpstreamRequest(url: upstream.url("/n/\(index)"), timeout: .seconds(20), cachePolicy: .bypass)
                        let response = try await client.send(request)
                        #expect(response.body == Array("/n/\(index)".utf8))
                    }
                }
                try await group.waitForAll()
            }
            #expect(upstream.requestCount == 200)
            #expect(upstream.acceptedConnections <= 4)
            #expect(client.statistics.requestsStarted == 200)
        }
    }

    @Test func cancellationRemovesTheTransferAndThrows() async throws {
        try await withUpstream(handler: { request in
            request.path == "/slow" ? .respond(status: 200, body: Self.body, delay: .seconds(60)) : .respond(status: 200, body: Self.body)
        }) { upstream, client in
            let started = ContinuousClock.now
            let task = Task { try await client.send(UpstreamRequest(url: upstream.url("/slow"), timeout: .seconds(10))) }
            #expect(await waitUntil { upstream.requestCount == 1 }, "the transfer reached the upstream")
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
            #expect(started.duration(to: .now) < .seconds(30))
            // Already-cancelled tasks never reach the upstream.
            let cancelled = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await client.send(UpstreamRequest(url: upstream.url("/never"), cachePolicy: .bypass))
            }
            await #expect(throws: CancellationError.self) { try await cancelled.value }
            // The client keeps working.
            let after = try await client.send(UpstreamRequest(url: upstream.url("/after")))
            #expect(after.status == 200)
            // (Whether "/slow" reached the upstream before the cancel depends on scheduling.)
            #expect(!upstream.receivedPaths.contains("/never"))
            #expect(upstream.receivedPaths.last == "/after")
        }
    }

    @Test func independentRequestsOverlap() async throws {
        try await withUpstream(handler: { _ in .respond(status: 200, body: Self.body, delay: .seconds(1)) }) { upstream, client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<3 {
                    group.addTask { _ = try await client.send(UpstreamRequest(url: upstream.url("/\(index)"), timeout: .seconds(10))) }
                }
                try await group.waitForAll()
            }
            // Structural, not timing: all three were in the upstream at once.
            #expect(upstream.maxConcurrentRequests == 3)
        }
    }

    @Test func coalescingWorksWithTheCacheDisabled() async throws {
        let configuration = UpstreamConfiguration(cacheEntries: 0)
        try await withUpstream(configuration: configuration, handler: { _ in
            .respond(status: 200, headers: [("Cache-Control", "max-age=60")], body: Self.body, delay: .seconds(1))
        }) { upstream, client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask { _ = try await client.send(UpstreamRequest(url: upstream.url("/shared"))) }
                }
                try await group.waitForAll()
            }
            #expect(upstream.requestCount == 1)
            let again = try await client.send(UpstreamRequest(url: upstream.url("/shared")))
            #expect(again.cacheStatus == .miss)
            #expect(upstream.requestCount == 2)
        }
    }

    @Test func manyCancellationsNeitherHangNorBreakTheClient() async throws {
        try await withUpstream(handler: { request in
            request.path.hasPrefix("/slow") ? .respond(status: 200, body: Self.body, delay: .seconds(60)) : .respond(status: 200, body: Self.body)
        }) { upstream, client in
            let tasks = (0..<40).map { index in
                Task {
                    // Half distinct (own transfer), half identical (coalesced).
                    let path = index % 2 == 0 ? "/slow/\(index)" : "/slow/shared"
                    return try await client.send(UpstreamRequest(url: upstream.url(path), timeout: .seconds(10)))
                }
            }
            // 20 transfers of their own and one for the 20 coalesced: all in flight at the upstream.
            #expect(await waitUntil { upstream.requestCount == 21 }, "\(upstream.requestCount) transfers reached the upstream")
            let started = ContinuousClock.now
            for task in tasks { task.cancel() }
            for task in tasks {
                await #expect(throws: CancellationError.self) { try await task.value }
            }
            #expect(started.duration(to: .now) < .seconds(30))
            let after = try await client.send(UpstreamRequest(url: upstream.url("/after")))
            #expect(after.status == 200)
        }
    }

    @Test func shutdownFailsInFlightRequestsPromptly() async throws {
        try await withUpstream(handler: { _ in .respond(status: 200, body: Self.body, delay: .seconds(60)) }) { upstream, client in
            let task = Task { try await client.send(UpstreamRequest(url: upstream.url("/slow"), timeout: .seconds(10))) }
            #expect(await waitUntil { upstream.requestCount == 1 }, "the transfer reached the upstream")
            let started = ContinuousClock.now
            client.shutdown()
            let error = await #expect(throws: UpstreamError.self) { try await task.value }
            #expect(error?.kind == .other)
            #expect(started.duration(to: .now) < .seconds(30))
        }
    }

    @Test func shutdownFailsLaterRequests() async throws {
        try await withUpstream(handler: { _ in .respond(status: 200) }) { upstream, client in
            client.shutdown()
            let error = try await #require(throws: UpstreamError.self) {
                try await client.send(UpstreamRequest(url: upstream.url("/")))
            }
            #expect(error.kind == .other)
        }
    }
}

/// Polls `condition` until it holds or 60 s pass (a safety net: it returns as soon as it holds).
func waitUntil(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(60)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}
