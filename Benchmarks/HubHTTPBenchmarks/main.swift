// HubHTTP loopback benchmark server: serves a fixed 30 KB JSON body at GET /view (a prepared
// representation: ETag, 304, cached gzip), the same answered on the immediate path (no task) at
// GET /view.now, and the same as plain bytes at GET /view.gz (gzip per request). Run it with
// run.sh (wrk, optional nginx).
//   HubHTTPBenchmarks [PORT]   (default 8090)
import Dispatch
import HubHTTP
#if canImport(Glibc)
import Glibc
#endif

let port = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 8090 : 8090
func item(_ index: Int) -> String {
    #"{"id":"row-"# + String(index) + #"","component":{"id":"default:row","category":"row"},"text":{"title":"Title","subtitle":"Subtitle"}},"#
}
var body = Array(#"{"id":"bench","body":["#.utf8)
var index = 0
while body.count < 30 * 1024 - 64 {
    body += Array(item(index).utf8)
    index += 1
}
body.removeLast()
body += Array("]}".utf8)
let payload = body
// Prepared once: the ETag is hashed (and a gzip made) once for every request.
let representation = Representation(bytes: payload)

var router = Router()
router.add(.get, "/view") { _, _ in
    HTTPResponse(headers: ["Content-Type": "application/json"], body: .representation(representation))
}
// The same response answered now: no task, the middleware's hooks run on the loop.
router.add(.get, "/view.now", answer: { _, _ in
    .now(HTTPResponse(headers: ["Content-Type": "application/json"], body: .representation(representation)))
})
// Plain bytes: compressed per request.
router.add(.get, "/view.gz") { _, _ in HTTPResponse.json(payload) }

let server = HTTPServer(
    configuration: HTTPServerConfiguration(host: "127.0.0.1", port: port),
    responder: router.wrapped(in: [ErrorMiddleware(), RepresentationMiddleware()])
)
try server.start()
print("HubHTTPBenchmarks: \(payload.count) bytes at http://127.0.0.1:\(server.localPort)/view")

signal(SIGINT, SIG_IGN)
signal(SIGTERM, SIG_IGN)
let stop = DispatchSemaphore(value: 0)
let sources = [SIGINT, SIGTERM].map { signalNumber in
    let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
    source.setEventHandler { @Sendable in stop.signal() }
    source.resume()
    return source
}
await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
    DispatchQueue.global().async { @Sendable in
        stop.wait()
        continuation.resume()
    }
}
await server.shutdown()
_ = sources
