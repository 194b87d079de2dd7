import HubTestSupport
import Synchronization
import Testing
@testable import HubHTTP

/// The immediate path (``ImmediateHTTPResponder``): a connection answers without a task when
/// every layer can, the answer is the one the asynchronous path gives, and a `nil` hands the
/// request to that path with nothing done twice.
@Suite struct ImmediateResponderTests {
    static let body = Array(String(repeating: "settled view ", count: 200).utf8)

    /// Counts which path answered.
    final class Paths: Sendable {
        let immediate = Atomic<Int>(0)
        let asynchronous = Atomic<Int>(0)
        let reported = Atomic<Int>(0)
    }

    /// `/settled` answers on both paths; `/later` only asynchronously (its immediate form says
    /// `nil`); `/plain` has no immediate form; `/bad` throws a problem; `/boom` a non-HTTP error.
    static func router(_ paths: Paths) -> Router {
        var router = Router()
        let settled: @Sendable () -> HTTPResponse = {
            var response = HTTPResponse(
                headers: ["Content-Type": "application/json", "Cache-Control": "private, no-cache"],
                body: .representation(Representation(bytes: body)))
            response.headers.add(name: "X-Kind", value: "settled")
            return response
        }
        router.add(.get, "/settled", immediate: { _, _ in
            paths.immediate.add(1, ordering: .relaxed)
            return settled()
        }) { _, _ in
            paths.asynchronous.add(1, ordering: .relaxed)
            return settled()
        }
        router.add(.get, "/later", immediate: { _, _ in nil }) { _, _ in
            paths.asynchronous.add(1, ordering: .relaxed)
            return .text("later")
        }
        router.add(.get, "/plain") { _, _ in
            paths.asynchronous.add(1, ordering: .relaxed)
            return .text("plain")
        }
        router.add(.get, "/bad", immediate: { _, _ in throw HTTPError(.badRequest, code: "bad_thing", detail: "no") }) { _, _ in
            throw HTTPError(.badRequest, code: "bad_thing", detail: "no")
        }
        router.add(.get, "/boom", immediate: { _, _ in throw CancellationError() }) { _, _ in throw CancellationError() }
        router.add(.post, "/settled") { _, _ in .text("posted") }
        return router
    }

    static func stack(_ paths: Paths) throws -> [any HTTPMiddleware] {
        [
            try CORSMiddleware(policy: CORSPolicy(origins: ["https://app.example"]), routes: { _ in ("/settled", [.get, .post]) }),
            ErrorMiddleware { _, _, _ in paths.reported.add(1, ordering: .relaxed) },
            RepresentationMiddleware(minBytes: 1024),
        ]
    }

    @Test func wrappedIsImmediateOnlyWhileEveryLayerIs() throws {
        let paths = Paths()
        #expect(Self.router(paths).wrapped(in: try Self.stack(paths)) is any ImmediateHTTPResponder)
        struct Plain: HTTPMiddleware {
            nonisolated(nonsending) func respond(to request: HTTPRequest, context: RequestContext, next: any HTTPResponder) async throws -> HTTPResponse {
                try await next.respond(to: request, context: context)
            }
        }
        // A layer without an immediate form hides the immediate layers inside it.
        #expect(!(Self.router(paths).wrapped(in: [Plain()] + (try Self.stack(paths))) is any ImmediateHTTPResponder))
        #expect(!(Self.router(paths).wrapped(in: try Self.stack(paths) + [Plain()]) is any ImmediateHTTPResponder))
    }

    /// Both paths give the same status, headers and body for every kind of answer.
    @Test(arguments: [
        ("/settled", ["Accept-Encoding": "gzip"] as [String: String]),
        ("/settled", [:]),
        ("/settled", ["Origin": "https://app.example", "Accept-Encoding": "gzip"]),
        ("/settled", ["Origin": "https://other.example"]),
        ("/bad", ["Origin": "https://app.example"]),
        ("/boom", [:]),
        ("/nowhere", [:]),
    ])
    func immediateAnswersAsTheAsynchronousPathDoes(path: String, fields: [String: String]) async throws {
        let paths = Paths()
        let responder = Self.router(paths).wrapped(in: try Self.stack(paths))
        let immediate = try #require(responder as? any ImmediateHTTPResponder)
        let headers = HTTPHeaders(fields.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) })
        let request = HTTPRequest(method: .get, target: path, headers: headers)
        let now = try #require(immediate.answerImmediately(request, context: RequestContext(requestId: "a")))
        let later = await responder.answer(request, context: RequestContext(requestId: "b"))
        #expect(now.status == later.status)
        #expect(now.headers.fields.map { "\($0.name): \($0.value)" } == later.headers.fields.map { "\($0.name): \($0.value)" })
        #expect(now.body.bytes == later.body.bytes)
        // The non-HTTP error was reported once by each path, never more.
        #expect(paths.reported.load(ordering: .relaxed) == (path == "/boom" ? 2 : 0))
    }

    @Test func preflightAndNotModifiedAreImmediate() throws {
        let paths = Paths()
        let immediate = try #require(Self.router(paths).wrapped(in: try Self.stack(paths)) as? any ImmediateHTTPResponder)
        let preflight = HTTPRequest(
            method: .options, target: "/settled",
            headers: ["Origin": "https://app.example", "Access-Control-Request-Method": "POST"])
        let answer = try #require(immediate.answerImmediately(preflight, context: RequestContext(requestId: "p")))
        #expect(answer.status == .noContent)
        #expect(answer.headers["Access-Control-Allow-Methods"] == "GET, POST")
        let etag = ETag.strong(for: Self.body)
        let revalidation = HTTPRequest(method: .get, target: "/settled", headers: ["If-None-Match": etag])
        #expect(try #require(immediate.answerImmediately(revalidation, context: RequestContext(requestId: "r"))).status == .notModified)
        // 405 with Allow, from the router, without a task.
        let wrongMethod = HTTPRequest(method: .delete, target: "/settled")
        let refused = try #require(immediate.answerImmediately(wrongMethod, context: RequestContext(requestId: "m")))
        #expect(refused.status == .methodNotAllowed)
        #expect(refused.headers["Allow"] == "GET, HEAD, POST")
    }

    /// Over a socket: a settled answer runs only the immediate form; `nil` and routes without one
    /// run only the asynchronous form, once.
    @Test func connectionTakesTheImmediatePathFirst() async throws {
        let paths = Paths()
        let responder = Self.router(paths).wrapped(in: try Self.stack(paths))
        try await withServer(responder: responder) { server in
            let client = try LoopbackClient(port: server.localPort)
            let (settled, later, plain, gzip) = try await blocking {
                try client.send("GET /settled HTTP/1.1\r\nHost: x\r\n\r\n")
                let settled = try client.readResponse()
                try client.send("GET /later HTTP/1.1\r\nHost: x\r\n\r\n")
                let later = try client.readResponse()
                try client.send("GET /plain HTTP/1.1\r\nHost: x\r\n\r\n")
                let plain = try client.readResponse()
                // Pipelined: both answered in order, each once.
                try client.send("GET /settled HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\nGET /plain HTTP/1.1\r\nHost: x\r\n\r\n")
                let gzip = try client.readResponse()
                _ = try client.readResponse()
                return (settled, later, plain, gzip)
            }
            #expect(settled.status == 200)
            #expect(settled.body == Self.body)
            #expect(settled.headers["X-Kind"] == "settled")
            #expect(settled.headers["Content-Length"] == String(Self.body.count))
            #expect(settled.headers["X-Request-Id"]?.isEmpty == false)
            #expect(later.text == "later")
            #expect(plain.text == "plain")
            #expect(gzip.headers["Content-Encoding"] == "gzip")
            #expect(Gzip.decompress(gzip.body) == Self.body)
            #expect(paths.immediate.load(ordering: .relaxed) == 2)
            #expect(paths.asynchronous.load(ordering: .relaxed) == 3)
        }
    }
}
