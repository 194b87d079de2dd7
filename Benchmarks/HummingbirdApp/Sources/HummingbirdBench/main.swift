// The bench view served by Hummingbird 2, the way a team writing its own Swift backend would:
// Codable structs, the view assembled per request (static part, the same patch as the
// HubServer feature, the remote items) and encoded with a new `JSONEncoder` per request.
//
//   HummingbirdBench PORT STATIC_JSON ITEMS_JSON
//
// STATIC_JSON is Benchmarks/bench/config/content/bench-static.json and ITEMS_JSON is the
// upstream's Benchmarks/bench/upstream/items.json, both decoded once at start-up: that is a
// perfectly cached upstream, which favours this app (it never fetches).
// Routes: GET /view (JSON, gzip when the client accepts it), GET /fixed (the same bytes,
// encoded once at start-up: the HTTP layer alone).
import CompressNIO
import Foundation
import Hummingbird
import NIOCore

struct ComponentIdentifier: Codable, Sendable {
    var id: String
    var category: String
}

struct Text: Codable, Sendable {
    var title: String?
    var subtitle: String?
    var accessory: String?
    var description: String?
}

struct Image: Codable, Sendable {
    var uri: String?
    var placeholder: String?
}

struct Images: Codable, Sendable {
    var main: Image?
    var background: Image?
}

struct Target: Codable, Sendable {
    var uri: String?
    var actions: [String]?
}

struct Metadata: Codable, Sendable {
    var position: Int
    var durationSeconds: Int
    var explicit: Bool
}

struct Logging: Codable, Sendable {
    var section: String
    var impression: String
    var rank: Int
}

struct Custom: Codable, Sendable {
    var badge: String
    var accent: String
}

struct Component: Codable, Sendable {
    var id: String
    var component: ComponentIdentifier
    var text: Text?
    var images: Images?
    var target: Target?
    var metadata: Metadata?
    var logging: Logging?
    var custom: Custom?
}

struct View: Codable, Sendable {
    var id: String
    var title: String
    var header: Component
    var body: [Component]
}

/// The content a backend would keep in memory: the static part and the cached remote items.
struct Content: Sendable {
    let base: View
    let items: [Component]

    /// The view of one request: static, then the patch of features/bench.json, then remote.
    func makeView() -> View {
        var view = base
        for index in view.body.indices {
            switch view.body[index].id {
            case "static-00":
                view.body[index].text?.title = "Patched title 00"
                view.body[index].custom?.badge = "hot"
            case "static-03": view.body[index].text?.subtitle = "Patched subtitle 03"
            case "static-06": view.body[index].metadata?.position = 106
            case "static-09": view.body[index].images?.main?.placeholder = "playlist"
            case "static-12": view.body[index].component = ComponentIdentifier(id: "default:card", category: "card")
            case "static-15": view.body[index].target?.uri = "hub:bench:patched:15"
            default: break
            }
        }
        if let moved = view.body.firstIndex(where: { $0.id == "static-19" }) {
            view.body.insert(view.body.remove(at: moved), at: 0)
        }
        view.body.append(contentsOf: items)
        return view
    }
}

func jsonResponse(_ buffer: ByteBuffer, gzip: Bool) throws -> Response {
    var headers = HTTPFields()
    headers[.contentType] = "application/json"
    headers[.vary] = "Accept-Encoding"
    if gzip {
        var input = buffer
        let compressed = try input.compress(with: .gzip(configuration: .init(compressionLevel: 6)))
        headers[.contentEncoding] = "gzip"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: compressed))
    }
    return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: buffer))
}

/// A new encoder per request, as handlers usually do.
func encode(_ view: View) throws -> ByteBuffer {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.withoutEscapingSlashes]
    return ByteBuffer(data: try encoder.encode(view))
}

func acceptsGzip(_ request: Request) -> Bool {
    request.headers[.acceptEncoding]?.contains("gzip") ?? false
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let port = Int(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: HummingbirdBench PORT STATIC_JSON ITEMS_JSON\n".utf8))
    exit(64)
}
let decoder = JSONDecoder()
let content = Content(
    base: try decoder.decode(View.self, from: Data(contentsOf: URL(fileURLWithPath: arguments[2]))),
    items: try decoder.decode([Component].self, from: Data(contentsOf: URL(fileURLWithPath: arguments[3]))))

let fixed = try encode(content.makeView())

let router = Router()
router.get("/view") { request, _ -> Response in
    try jsonResponse(try encode(content.makeView()), gzip: acceptsGzip(request))
}
router.get("/fixed") { request, _ -> Response in
    try jsonResponse(fixed, gzip: acceptsGzip(request))
}
let app = Application(
    router: router,
    configuration: .init(address: .hostname("127.0.0.1", port: port), backlog: 1024))
try await app.runService()
