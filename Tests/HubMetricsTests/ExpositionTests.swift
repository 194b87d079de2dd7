import Foundation
import HubMetrics
import HubSync
import Testing

@Suite struct ExpositionTests {
    @Test func countersRenderWithHelpTypeAndLabels() {
        let registry = MetricsRegistry()
        let requests = registry.counter("hub_http_requests_total", help: "HTTP requests.", labels: ["route", "status"])
        requests.labels("/view", "200").increment()
        requests.labels("/view", "200").increment(by: 2)
        requests.labels("/view", "404").increment()
        let text = registry.exposition()
        #expect(text == """
            # HELP hub_http_requests_total HTTP requests.
            # TYPE hub_http_requests_total counter
            hub_http_requests_total{route="/view",status="200"} 3
            hub_http_requests_total{route="/view",status="404"} 1

            """)
    }

    @Test func gaugesGoUpAndDown() {
        let registry = MetricsRegistry()
        let sessions = registry.gauge("hub_sessions_active", help: "Live sessions.").labels()
        sessions.increment(by: 5)
        sessions.decrement(by: 2)
        #expect(sessions.value == 3)
        #expect(registry.exposition().contains("hub_sessions_active 3\n"))
    }

    @Test func histogramBucketsAreCumulativeWithSumAndCount() {
        let registry = MetricsRegistry()
        let latency = registry.histogram("hub_request_seconds", help: "Latency.", bounds: [0.01, 0.1, 1]).labels()
        latency.observe(0.005)
        latency.observe(0.05)
        latency.observe(0.5)
        latency.observe(5)
        let text = registry.exposition()
        #expect(text.contains("hub_request_seconds_bucket{le=\"0.01\"} 1\n"))
        #expect(text.contains("hub_request_seconds_bucket{le=\"0.1\"} 2\n"))
        #expect(text.contains("hub_request_seconds_bucket{le=\"1\"} 3\n"))
        #expect(text.contains("hub_request_seconds_bucket{le=\"+Inf\"} 4\n"))
        #expect(text.contains("hub_request_seconds_count 4\n"))
        #expect(text.contains("hub_request_seconds_sum 5.555\n"))
    }

    @Test func labelValuesAreEscaped() {
        let registry = MetricsRegistry()
        registry.counter("odd_total", help: "Odd labels.", labels: ["value"]).labels("a\"b\\c\nd").increment()
        #expect(registry.exposition().contains(#"odd_total{value="a\"b\\c\nd"} 1"#))
    }

    @Test func collectedGaugesAreReadAtScrapeTime() {
        let registry = MetricsRegistry()
        registry.collectedGauge("hub_open_connections", help: "Open connections.") { [(labels: [], value: 7)] }
        #expect(registry.exposition().contains("hub_open_connections 7\n"))
    }

    @Test func concurrentIncrementsAreNotLost() async {
        let registry = MetricsRegistry()
        let counter = registry.counter("hits_total", help: "Hits.", labels: ["k"])
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for _ in 0..<1000 { counter.labels("k\(worker % 2)").increment() }
                }
            }
        }
        #expect(counter.labels("k0").value + counter.labels("k1").value == 8000)
    }

    /// Children are looked up in per-thread stripes: every thread must get the one child.
    @Test func everyThreadGetsTheSameChild() {
        let registry = MetricsRegistry()
        let counter = registry.counter("threads_total", help: "Per thread.", labels: ["k"])
        let done = DispatchSemaphore(value: 0)
        let children = Locked<[ObjectIdentifier]>([])
        for _ in 0..<16 {
            Thread {
                let child = counter.labels("same")
                child.increment()
                children.withLock { $0.append(ObjectIdentifier(child)) }
                done.signal()
            }.start()
        }
        for _ in 0..<16 { done.wait() }
        #expect(Set(children.withLock { $0 }).count == 1)
        #expect(counter.labels("same").value == 16)
        #expect(registry.exposition().components(separatedBy: "threads_total{k=\"same\"} 16\n").count == 2)
    }
}

@Test func collectedCountersRenderAsCounters() {
    let registry = MetricsRegistry()
    registry.collectedCounter("hub_sessions_evicted_total", help: "Evicted sessions.") { [(labels: [("reason", "cap")], value: 3)] }
    let text = registry.exposition()
    #expect(text.contains("# TYPE hub_sessions_evicted_total counter\n"))
    #expect(text.contains("hub_sessions_evicted_total{reason=\"cap\"} 3\n"))
}

@Suite struct LabelCapTests {
    @Test("label sets past maximumChildren share one _overflow child; the exposition stays bounded")
    func overflowChild() {
        let registry = MetricsRegistry()
        let family = registry.counter("hub_test_total", help: "Test.", labels: ["a", "b"])
        for index in 0..<5000 { family.labels("v\(index)", "w").increment() }
        #expect(family.allChildren.count == family.maximumChildren)
        let overflow = family.labels("another", "one")
        let sameOverflow = family.labels(MetricFamily<Counter>.overflowLabel, MetricFamily<Counter>.overflowLabel)
        #expect(overflow === sameOverflow)
        #expect(registry.exposition().contains(#"hub_test_total{a="_overflow",b="_overflow"}"#))
        let single = registry.counter("hub_single_total", help: "Test.", labels: ["x"])
        for index in 0..<5000 { single.labels("x\(index)").increment() }
        #expect(single.allChildren.count == single.maximumChildren)
    }
}
