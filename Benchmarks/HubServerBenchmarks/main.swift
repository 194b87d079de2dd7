// HubServer benchmarks through the engine and the remote operation kind, against a real
// local upstream (HubHTTP on 127.0.0.1) that answers each request after a delay.
//   make bench-server   (swift run -c release HubServerBenchmarks)
//   BENCH_SERVER_ONLY=held|uri|apps [BENCH_SERVER_SECONDS=10]: one path only, for a profiler (below)
//
// 1. Three remote operations, each answered after 100 ms: view latency (prefetch overlaps them).
// 2. 1 000 concurrent views over one upstream host: connections libcurl opened
//    (server.json upstream.maxConnectionsPerHost = 32).
// 3. `GET /view` through the whole responder stack in memory (`respond(to:)`): ns per request,
//    held and memoized, without the kernel's noise (run twice or more: one process's hash seed
//    and memory layout move it by about 5%); 3b: the same on bench-cpu's realistic config with
//    an app client's fields.
import Foundation
import HubEngine
@_spi(Benchmarks) import HubHTTP
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

// The fields an app's client sends (bench-cpu's `app` cells), for section 3b and the mode below.
let appFields: [HTTPHeaders.Field] = [
    ("Host", "127.0.0.1"), ("User-Agent", "HubApp/4.2.0 (iPhone15,3; iOS 18.1; Scale/3.00)"), ("Accept", "application/json"),
    ("Accept-Language", "en-GB,en;q=0.9,sv;q=0.5"), ("Hub-Client", "ios/4.2.0"),
    ("Hub-Components", "default:header,default:row,default:card,default:carousel,default:banner"),
    ("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
]
/// The request as the server's parser makes it from the bytes an app sends (fields read in place).
func appRequest(_ target: String, clientID: String? = nil) -> HTTPRequest {
    let fields = appFields + (clientID.map { [(name: "Hub-Client-Id", value: $0)] } ?? [])
    let head = "GET \(target) HTTP/1.1\r\n" + fields.map { "\($0.name): \($0.value)\r\n" }.joined() + "\r\n"
    guard let request = RequestParsingBenchmark.request(Array(head.utf8)) else { fatalError("the app request does not parse") }
    return request
}

// `BENCH_SERVER_ONLY=held` (or `uri`): only the request path of the realistic config's 1 KB view
// for the app client (section 3b's), in a loop for `BENCH_SERVER_SECONDS` (10), then the ns per
// request; nothing else runs, so `perf record -g .build/release/HubServerBenchmarks` profiles that
// one path. Run from the repository's root. The figure is the mean of the whole run, with every
// disturbance in it, not 3b's fastest batch: expect it higher. `apps`: the `?uri=` path as 64
// apps ask for the view in turn (each request another Hub-Client-Id, as bench-cpu's `apps` cells).
// `BENCH_SERVER_VIEW=28` another measured view (hub:bench:28k needs the benchmark upstream on
// 127.0.0.1:18181: `python3 Benchmarks/bench/upstream.py 18181 --files Benchmarks/configs/realistic/upstream`).
if let only = ProcessInfo.processInfo.environment["BENCH_SERVER_ONLY"] {
    guard ["held", "uri", "apps"].contains(only) else { fatalError("BENCH_SERVER_ONLY is held, uri or apps, not \(only)") }
    let seconds = Int(ProcessInfo.processInfo.environment["BENCH_SERVER_SECONDS"] ?? "") ?? 10
    let kilobytes = ProcessInfo.processInfo.environment["BENCH_SERVER_VIEW"] ?? "1"
    let realistic = try HubApplication.load(directory: "Benchmarks/configs/realistic", environment: [:])
    let uri = appRequest("/view?uri=hub:bench:\(kilobytes)k")
    let opened = await realistic.respond(to: uri)
    guard opened.status == .ok, let session = opened.headers["Hub-Session"] else {
        fatalError("hub:bench:\(kilobytes)k did not load: \(opened.status)")
    }
    let held = appRequest("/view?session=\(session)")
    _ = await realistic.respond(to: held)  // held: asked for again
    let apps = (0..<64).map { appRequest("/view?uri=hub:bench:\(kilobytes)k", clientID: "client-\($0)") }
    let (count, nanoseconds) = await requestsFor(seconds: seconds, realistic, only == "held" ? [held] : only == "uri" ? [uri] : apps)
    print("\(only), realistic config, app client, \(kilobytes) KB view: \(count) requests, \(String(format: "%.0f", nanoseconds)) ns per request")
    try? FileManager.default.removeItem(atPath: directory)  // exit runs no defer
    exit(0)
}

/// `application` answering `requests` in turn for `seconds`: how many requests, and ns per request. A
/// global function, not main-actor code: top-level code would hop to the main actor and back on
/// every request.
func requestsFor(seconds: Int, _ application: HubApplication, _ requests: [HTTPRequest]) async -> (Int, Double) {
    let start = clock.now
    var count = 0
    while clock.now - start < .seconds(seconds) {
        for index in 0..<10_000 {
            let response = await application.respond(to: requests[index % requests.count])
            precondition(response.status == .ok)
        }
        count += 10_000
    }
    return (count, (clock.now - start) / .nanoseconds(1) / Double(count))
}

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

// 3. The request path in memory: `GET /view` through the whole responder stack (middleware,
//    router, view endpoint, engine, representation) by `respond(to:)`, without sockets or the
//    parser, on one thread. A 2 KB static view under the default `"reload": "always"`, held
//    (`?session=`) and memoized (`?uri=`). The fastest of 7 batches of 50,000 requests (the least disturbed by the rest of the machine). This is the
//    user-space work the socket benchmarks (`make bench-matrix`) cannot isolate from the kernel.
let items = (0..<24).map { #"{"id":"row-\#($0)","text":{"title":"Row \#($0)","subtitle":"A row of the benchmark view"}}"# }
try """
    { "id": "static", "title": "Static", "match": { "root": "hub:static" },
      "operations": [ { "kind": "static", "json": { "body": [\(items.joined(separator: ","))] } } ] }
    """.write(toFile: directory + "/features/static.json", atomically: true, encoding: .utf8)
let inMemory = try HubApplication.load(directory: directory, environment: [:])
let opening = await inMemory.respond(to: HTTPRequest(method: .get, target: "/view?uri=hub:static"))
guard opening.status == .ok, let token = opening.headers["Hub-Session"], let bytes = opening.body.bytes else {
    fatalError("the benchmark view did not load: \(opening.status)")
}
/// ns per request of `application` answering `request` (200 each time): the fastest of `batches`
/// batches of `perBatch` requests, the one least disturbed by the rest of the machine.
func fastestNanoseconds(
    _ application: HubApplication, _ request: HTTPRequest, batches: Int, perBatch: Int
) async -> Double {
    var fastest = Double.infinity
    for _ in 0..<batches {
        let start = clock.now
        for _ in 0..<perBatch {
            let response = await application.respond(to: request)
            precondition(response.status == .ok)
        }
        fastest = min(fastest, (clock.now - start) / .nanoseconds(1) / Double(perBatch))
    }
    return fastest
}
func nanosecondsPerRequest(_ target: String) async -> Double {
    var request = HTTPRequest(method: .get, target: target)
    request.headers.add(name: "Host", value: "127.0.0.1")
    return await fastestNanoseconds(inMemory, request, batches: 7, perBatch: 50_000)
}
let held = await nanosecondsPerRequest("/view?session=\(token)")
let memoized = await nanosecondsPerRequest("/view?uri=hub:static")
print("request path in memory (\(bytes.count)-byte view, reload always): held ?session= \(String(format: "%.0f", held)) ns, memoized ?uri= \(String(format: "%.0f", memoized)) ns per request")

// 3b. The same on the realistic config `make bench-cpu` serves (Benchmarks/configs/realistic: 59
//     features, toggles, a schema; run from the repository's root) with the fields an app's
//     client sends (as bench-cpu's `app` cells): the held and `?uri=` paths of its 1 and 16 KB
//     views, whose user-space work is the gap bench-cpu measures against nginx.
let realistic = try HubApplication.load(directory: "Benchmarks/configs/realistic", environment: [:])
/// Many short batches: the fastest finds a quiet moment on a busy machine.
func realisticNanoseconds(_ request: HTTPRequest) async -> Double {
    await fastestNanoseconds(realistic, request, batches: 40, perBatch: 4_000)
}
for kb in [1, 16] {
    let uri = appRequest("/view?uri=hub:bench:\(kb)k")
    let opened = await realistic.respond(to: uri)
    guard opened.status == .ok, let session = opened.headers["Hub-Session"] else {
        fatalError("hub:bench:\(kb)k did not load on the realistic config: \(opened.status)")
    }
    let heldRequest = appRequest("/view?session=\(session)")
    _ = await realistic.respond(to: heldRequest)  // held: asked for again
    let heldNanoseconds = await realisticNanoseconds(heldRequest)
    let uriNanoseconds = await realisticNanoseconds(uri)
    print("request path in memory, realistic config, app client, \(kb) KB view: held ?session= \(String(format: "%.0f", heldNanoseconds)) ns, ?uri= \(String(format: "%.0f", uriNanoseconds)) ns per request")
}

// 4. The request parser in memory: a connection's bytes to `HTTPRequest`s (request line, fields,
//    framing, target and query decoding), no socket and no responder. The request wrk sends (one
//    field) and one a browser sends (twelve), then the browser's again with the lookups the held
//    view's path makes (fields that are not read need never become strings); the fastest of 7
//    batches of 100,000.
let wrkRequest = Array("GET /view?session=\(token) HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n".utf8)
let browserRequest = Array("""
    GET /view?session=\(token) HTTP/1.1\r
    Host: hub.example.com\r
    User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36\r
    Accept: application/json\r
    Accept-Encoding: gzip, deflate, br, zstd\r
    Accept-Language: en-GB,en;q=0.9\r
    Cache-Control: no-cache\r
    Connection: keep-alive\r
    Hub-Components: header,row,card,carousel,banner\r
    Origin: https://app.example.com\r
    Referer: https://app.example.com/\r
    Sec-Fetch-Mode: cors\r
    traceparent: 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\r
    \r

    """.utf8)
/// The fields the held view's path looks up in a request (request id, trace context, CORS,
/// client, components, session, encoding, revalidation), besides `Connection`.
let fieldsRead = [
    "X-Request-Id", "traceparent", "Origin", "Hub-Client", "Hub-Components", "Hub-Session", "Accept-Encoding",
    "If-None-Match", "Hub-Client",
]
func nanosecondsPerParse(_ bytes: [UInt8], reading names: [String] = []) -> Double {
    var batches: [Double] = []
    for _ in 0..<7 {
        let start = clock.now
        precondition(RequestParsingBenchmark.parse(bytes, times: 100_000, reading: names) == 100_000)
        batches.append((clock.now - start) / .nanoseconds(1) / 100_000)
    }
    return batches.min()!
}
let wrkParse = nanosecondsPerParse(wrkRequest)
let browserParse = nanosecondsPerParse(browserRequest)
print("request parser in memory: \(wrkRequest.count)-byte request with one field \(String(format: "%.0f", wrkParse)) ns, \(browserRequest.count)-byte request with twelve fields \(String(format: "%.0f", browserParse)) ns per request")
let browserRead = nanosecondsPerParse(browserRequest, reading: fieldsRead)
print("request parser in memory, reading the \(fieldsRead.count + 1) fields the held view reads: the \(browserRequest.count)-byte request \(String(format: "%.0f", browserRead)) ns per request")

// The response head of a view as GET /view?uri= answers it (eight fields: the session token, the
// Server-Timing of three operations, the ETag, ...), written in memory.
let viewHeaders: HTTPHeaders = [
    "Content-Type": "application/json", "Cache-Control": "private, no-cache",
    "Hub-Session": "72Qp01DpD4Wjf8XX7-Oz1Q.saHViOmJlbmNoOjFr.1796264073.rB95SYtp_QC_KbfqFtIfzh8_31u1X5zIUsGT00OlmLM",
    "Hub-Version": "1",
    "Server-Timing": #"op0;desc="static";dur=0.004, op1;desc="patch";dur=0.052, op2;desc="patch";dur=0.002"#,
    "Vary": "Accept-Encoding", "ETag": #""08a18ee82903c0fb1a410c716ce4ad46""#, "X-Content-Type-Options": "nosniff",
]
var headBatches: [Double] = []
var headBytes = 0
for _ in 0..<7 {
    let start = clock.now
    headBytes = ResponseHeadBenchmark.encode(viewHeaders, length: 1107, times: 200_000) / 200_000
    headBatches.append((clock.now - start) / .nanoseconds(1) / 200_000)
}
print("response head in memory: a \(headBytes)-byte view head (\(viewHeaders.count) fields) \(String(format: "%.0f", headBatches.min()!)) ns per head")
