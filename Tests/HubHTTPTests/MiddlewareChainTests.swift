import HubSync
import HubTestSupport
import Synchronization
import Testing
@testable import HubHTTP

/// ``MiddlewareChain``: every hook runs once per request, in order, whether the handler answers
/// now or later; an answer made now is written with no task, whatever middleware the chain holds.
@Suite struct MiddlewareChainTests {
    static let body = Array(String(repeating: "settled view ", count: 200).utf8)

    static func settled() -> HTTPResponse {
        HTTPResponse(
            headers: ["Content-Type": "application/json", "Cache-Control": "private, no-cache"],
            body: .representation(Representation(bytes: body)))
    }

    /// Records every hook it runs, as `name.before`, `name.after`, `name.failed`.
    struct Recorder: HTTPMiddleware {
        let name: String
        let log: Locked<[String]>
        var answersEarly = false

        func before(_ request: HTTPRequest, context: RequestContext) throws -> HTTPResponse? {
            log.withLock { $0.append("\(name).before") }
            return answersEarly && request.path == "/early" ? .text("early") : nil
        }

        func after(_ response: consuming HTTPResponse, to request: HTTPRequest, context: RequestContext) -> HTTPResponse {
            log.withLock { $0.append("\(name).after") }
            var response = response
            response.headers.add(name: "X-Seen-By", value: name)
            return response
        }

        func failed(_ error: any Error, request: HTTPRequest, context: RequestContext) throws -> HTTPResponse {
            log.withLock { $0.append("\(name).failed") }
            throw error
        }
    }

    /// `/now` and `/later` answer the same response (one now, one from a task); `/bad` throws a
    /// problem now, `/bad-later` from its work.
    static func router() -> Router {
        var router = Router()
        router.add(.get, "/now", answer: { _, _ in .now(settled()) })
        router.add(.get, "/later") { _, _ in settled() }
        router.add(.get, "/bad", answer: { _, _ in throw HTTPError(.badRequest, code: "bad_thing", detail: "no") })
        router.add(.get, "/bad-later") { _, _ in throw HTTPError(.badRequest, code: "bad_thing", detail: "no") }
        router.add(.get, "/early") { _, _ in .text("handler") }
        router.add(.post, "/now") { _, _ in .text("posted") }
        return router
    }

    static func stack(_ log: Locked<[String]>) throws -> [any HTTPMiddleware] {
        [
            Recorder(name: "outer", log: log),
            try CORSMiddleware(policy: CORSPolicy(origins: ["https://app.example"]), routes: { _ in ("/now", [.get, .post]) }),
            ErrorMiddleware(),
            Recorder(name: "inner", log: log, answersEarly: true),
            RepresentationMiddleware(minBytes: 1024),
        ]
    }

    @Test("hooks run once each: before outermost first, after innermost first, errors to the first that answers")
    func hookOrder() async throws {
        let log = Locked<[String]>([])
        let chain = Self.router().wrapped(in: try Self.stack(log))
        for path in ["/now", "/later"] {
            log.withLock { $0 = [] }
            let response = try await chain.respond(to: HTTPRequest(method: .get, target: path), context: RequestContext(requestId: "r"))
            #expect(response.status == .ok)
            #expect(response.headers.values(for: "X-Seen-By") == ["inner", "outer"], "\(path)")
            #expect(log.withLock { $0 } == ["outer.before", "inner.before", "inner.after", "outer.after"], "\(path)")
        }
        for path in ["/bad", "/bad-later"] {
            log.withLock { $0 = [] }
            let response = try await chain.respond(to: HTTPRequest(method: .get, target: path), context: RequestContext(requestId: "r"))
            #expect(response.status == .badRequest, "\(path)")
            // ErrorMiddleware answers: the hooks outside it see its response, the ones inside the error.
            #expect(log.withLock { $0 } == ["outer.before", "inner.before", "inner.failed", "outer.after"], "\(path)")
        }
        log.withLock { $0 = [] }
        let early = try await chain.respond(to: HTTPRequest(method: .get, target: "/early"), context: RequestContext(requestId: "r"))
        #expect(early.body.bytes == Array("early".utf8), "the handler did not run")
        #expect(log.withLock { $0 } == ["outer.before", "inner.before", "outer.after"])
    }

    @Test("an answer made now stays now through every middleware; the same response as from a task")
    func nowStaysNow() throws {
        let chain = Self.router().wrapped(in: try Self.stack(Locked([])))
        let context = RequestContext(requestId: "r")
        let gzip = HTTPRequest(method: .get, target: "/now", headers: ["Accept-Encoding": "gzip"])
        guard case .now(let response) = try chain.answer(to: gzip, context: context) else {
            Issue.record("a handler's now answer became later")
            return
        }
        #expect(response.headers["Content-Encoding"] == "gzip")
        let etag = try #require(response.headers["ETag"])
        let revalidation = HTTPRequest(method: .get, target: "/now", headers: ["Accept-Encoding": "gzip", "If-None-Match": etag])
        guard case .now(let notModified) = try chain.answer(to: revalidation, context: context) else {
            Issue.record("a 304 became later")
            return
        }
        #expect(notModified.status == .notModified)
        let preflight = HTTPRequest(
            method: .options, target: "/now", headers: ["Origin": "https://app.example", "Access-Control-Request-Method": "POST"])
        guard case .now(let allowed) = try chain.answer(to: preflight, context: context) else {
            Issue.record("a preflight became later")
            return
        }
        #expect(allowed.status == .noContent)
        guard case .later = try chain.answer(to: HTTPRequest(method: .get, target: "/later"), context: context) else {
            Issue.record("work for later was answered now")
            return
        }
    }

    /// Over a socket: a now answer starts no task (``HTTPServer/requestsAnsweredLater``), with
    /// any middleware in the chain; each later answer starts one.
    @Test("over a socket, answers made now start no task; each later answer starts one")
    func connectionStartsTasksOnlyForLater() async throws {
        let chain = Self.router().wrapped(in: try Self.stack(Locked([])))
        try await withServer(responder: chain) { server in
            let client = try LoopbackClient(port: server.localPort)
            let before = server.requestsAnsweredLater
            let (now, gzip, bad) = try await blocking {
                try client.send("GET /now HTTP/1.1\r\nHost: x\r\n\r\n")
                let now = try client.readResponse()
                // Pipelined: both answered in order.
                try client.send("GET /now HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\nGET /bad HTTP/1.1\r\nHost: x\r\n\r\n")
                return (now, try client.readResponse(), try client.readResponse())
            }
            #expect(now.status == 200)
            #expect(now.body == Self.body)
            #expect(now.headers["X-Request-Id"]?.isEmpty == false)
            #expect(gzip.headers["Content-Encoding"] == "gzip")
            #expect(Gzip.decompress(gzip.body) == Self.body)
            #expect(bad.status == 400)
            #expect(server.requestsAnsweredLater == before, "a request answered now started a task")
            let later = try await blocking {
                try client.send("GET /later HTTP/1.1\r\nHost: x\r\n\r\n")
                return try client.readResponse()
            }
            #expect(later.body == Self.body)
            #expect(server.requestsAnsweredLater == before + 1)
        }
    }
}
