// HubServer benchmarks through the engine and the remote operation kind, against a real
// local upstream (HubHTTP on 127.0.0.1) that answers each request after a delay.
//   make bench-server   (swift run -c release HubServerBenchmarks)
//
// 1. Three remote operations, each answered after 100 ms: view latency (prefetch overlaps them).
// 2. 1 000 concurrent views over one upstream host: connections libcurl opened
//    (server.json upstream.maxConnectionsPerHost = 32).
import Foundation
import HubEngine
import HubHTTP
import HubModel
import HubPrimitives
import HubServer
import HubUpstream

func milliseconds(_ duration: Duration) -> Double { duration.inMilliseconds }

// The upstream: /slow/N answers after 100 ms with a list of two body components, never cacheable.
var router = Router()
router.add(.get, "/slow/{n}") { request, context in
    try await Task.sleep(for: .milliseconds(100))
    let n = context.pathParameters["n"] ?? "0"
    var response = HTTPResponse.json(Array(#"[{"id":"item-\#(n)-a","text":{"title":"A"}},{"id":"item-\#(n)-b"}]"#.utf8))
    response.headers.add(name: "Cache-Control", value: "no-store")
    return response
}
router.add(.get, "/fast/{n}") { request, context in
    let n = context.pathParameters["n"] ?? "0"
    var response = HTTPResponse.json(Array(#"[{"id":"fast-\#(n)"}]"#.utf8))
    response.headers.add(name: "Cache-Control", value: "no-store")
    return response
}
var upstreamConfiguration = HTTPServerConfiguration()
upstreamConfiguration.host = "127.0.0.1"
upstreamConfiguration.port = 0
let upstream = HTTPServer(configuration: upstreamConfiguration, responder: router)
try upstream.start()
let base = "http://127.0.0.1:\(upstream.localPort)"

// A config with one feature of three remote operations.
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-bench-\(getpid())").path
try FileManager.default.createDirectory(atPath: directory + "/features", withIntermediateDirectories: true)
try #"{ "upstream": { "maxConnectionsPerHost": 32, "timeoutMs": 5000 }, "timeouts": { "operationSeconds": 10 }, "log": { "level": "error" } }"#
    .write(toFile: directory + "/server.json", atomically: true, encoding: .utf8)
try """
    { "id": "three", "title": "Three", "match": { "root": "hub:three" },
      "operations": [ { "kind": "remote", "url": "\(base)/slow/1?v={query.v}" },
                      { "kind": "remote", "url": "\(base)/slow/2?v={query.v}" },
                      { "kind": "remote", "url": "\(base)/slow/3?v={query.v}" } ] }
    """.write(toFile: directory + "/features/three.json", atomically: true, encoding: .utf8)
try """
    { "id": "many", "title": "Many", "match": { "root": "hub:many" },
      "operations": [ { "kind": "remote", "url": "\(base)/fast/1?v={query.v}" },
                      { "kind": "remote", "url": "\(base)/fast/2?v={query.v}" },
                      { "kind": "remote", "url": "\(base)/fast/3?v={query.v}" } ] }
    """.write(toFile: directory + "/features/many.json", atomically: true, encoding: .utf8)
defer { try? FileManager.default.removeItem(atPath: directory) }

let application = try HubApplication.load(directory: directory, environment: [:])
let request = ViewRequest(viewURI: "hub:three")
let clock = ContinuousClock()

// 1. Latency of one view whose three operations each wait 100 ms upstream.
var latencies: [Double] = []
for _ in 0..<20 {
    let start = clock.now
    let (_, state) = try await application.engine.openSession(for: request)
    latencies.append(milliseconds(clock.now - start))
    precondition(state.failure == nil && state.viewModel?.body.count == 6, "view failed: \(String(describing: state.failure))")
}
latencies.sort()
print("three remote operations of 100 ms each -> view in median \(String(format: "%.1f", latencies[10])) ms, max \(String(format: "%.1f", latencies.last!)) ms (20 views; sequential would be 300 ms)")

// 2. 1 000 concurrent views over one upstream host (answering at once, distinct URLs).
let before = application.upstreamStatistics.connectionsOpened
let requestsBefore = application.upstreamStatistics.requestsStarted
let start = clock.now
let failures = await withTaskGroup(of: Bool.self) { group in
    for view in 0..<1000 {
        group.addTask {
            // A distinct query per view: no coalescing, every view makes its own three requests.
            let distinct = ViewRequest(viewURI: "hub:many?v=\(view)")
            guard let (_, state) = try? await application.engine.openSession(for: distinct) else { return false }
            return state.failure == nil
        }
    }
    var failed = 0
    for await ok in group where !ok { failed += 1 }
    return failed
}
let opened = application.upstreamStatistics.connectionsOpened - before
let requests = application.upstreamStatistics.requestsStarted - requestsBefore
print("1000 concurrent views (\(requests) upstream requests) in \(String(format: "%.0f", milliseconds(clock.now - start))) ms: \(opened) upstream connections opened (cap 32), \(failures) failed")
await upstream.shutdown()
