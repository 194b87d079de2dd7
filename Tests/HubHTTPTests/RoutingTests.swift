import Testing
@testable import HubHTTP

private struct Boom: Error { let secret = "/etc/passwd at line 42" }

private func request(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders = ["Host": "h"]) -> HTTPRequest {
    HTTPRequest(method: method, target: target, headers: headers)
}

private func request(_ target: String, headers: HTTPHeaders = ["Host": "h"]) -> HTTPRequest {
    request(.get, target, headers: headers)
}

private func bodyText(_ response: HTTPResponse) -> String {
    String(decoding: response.body.bytes ?? [], as: UTF8.self)
}

@Suite struct RoutingTests {
    let router: Router = {
        var router = Router()
        router.add(.get, "/view") { _, _ in .text("view") }
        router.add(.post, "/view") { _, _ in .text("posted") }
        router.add(.get, "/items/{id}") { _, context in .text("item \(context.pathParameters["id"] ?? "")") }
        router.add(.delete, "/items/{id}/tags/{tag}") { _, context in
            .text("\(context.pathParameters["id"]!)/\(context.pathParameters["tag"]!)")
        }
        router.add(.get, "/boom") { _, _ in throw Boom() }
        router.add(.get, "/teapot") { _, _ in throw HTTPError(HTTPStatus(code: 418), code: "teapot", detail: "Short and stout.") }
        return router
    }()

    var app: any HTTPResponder { router.wrapped(in: [ErrorMiddleware(), RequestIDMiddleware()]) }

    @Test func staticAndParameterRoutes() async throws {
        #expect(bodyText(try await app.respond(to: request("/view"), context: RequestContext(requestId: "r"))) == "view")
        #expect(bodyText(try await app.respond(to: request(.post, "/view"), context: RequestContext(requestId: "r"))) == "posted")
        #expect(bodyText(try await app.respond(to: request("/items/42"), context: RequestContext(requestId: "r"))) == "item 42")
        #expect(bodyText(try await app.respond(to: request(.delete, "/items/7/tags/x"), context: RequestContext(requestId: "r"))) == "7/x")
    }

    @Test func unknownPathIs404Problem() async throws {
        let response = try await app.respond(to: request("/nope"), context: RequestContext(requestId: "r"))
        #expect(response.status == .notFound)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        #expect(bodyText(response) == #"{"type":"about:blank","title":"Not Found","status":404,"detail":"No resource at this path.","code":"route_not_found"}"#)
        #expect(try await app.respond(to: request("/items/"), context: RequestContext(requestId: "r")).status == .notFound)
    }

    @Test func wrongMethodIs405WithAllow() async throws {
        let response = try await app.respond(to: request(.put, "/view"), context: RequestContext(requestId: "r"))
        #expect(response.status == .methodNotAllowed)
        #expect(response.headers["Allow"] == "GET, HEAD, POST")
        #expect(bodyText(response).contains(#""code":"method_not_allowed""#))
        let items = try await app.respond(to: request(.post, "/items/1"), context: RequestContext(requestId: "r"))
        #expect(items.headers["Allow"] == "GET, HEAD")
    }

    @Test func headUsesGet() async throws {
        let response = try await app.respond(to: request(.head, "/view"), context: RequestContext(requestId: "r"))
        #expect(response.status == .ok)
        #expect(bodyText(response) == "view")  // the connection drops the body, keeping Content-Length
    }

    @Test func unknownErrorsHideInternals() async throws {
        let response = try await app.respond(to: request("/boom"), context: RequestContext(requestId: "r"))
        #expect(response.status == .internalServerError)
        let text = bodyText(response)
        #expect(text.contains(#""code":"internal_error""#))
        #expect(!text.contains("passwd") && !text.contains("Boom"))
        let teapot = try await app.respond(to: request("/teapot"), context: RequestContext(requestId: "r"))
        #expect(teapot.status.code == 418)
        #expect(bodyText(teapot) == #"{"type":"about:blank","title":"","status":418,"detail":"Short and stout.","code":"teapot"}"#)
    }

    @Test func routeTemplateVisibleToOuterMiddleware() async throws {
        struct Probe: HTTPMiddleware {
            func after(_ response: consuming HTTPResponse, to request: HTTPRequest, context: RequestContext) -> HTTPResponse {
                var response = response
                response.headers.add(name: "X-Route", value: context.routeTemplate ?? "none")
                return response
            }
        }
        let responder = router.wrapped(in: [Probe(), ErrorMiddleware()])
        let response = try await responder.respond(to: request("/items/9"), context: RequestContext(requestId: "r"))
        #expect(response.headers["X-Route"] == "/items/{id}")
        let missing = try await responder.respond(to: request("/zzz"), context: RequestContext(requestId: "r"))
        #expect(missing.headers["X-Route"] == "none")
    }

    @Test func requestIdEchoedWhenSane() async throws {
        let sane = request("/view", headers: ["Host": "h", "X-Request-Id": "abc-123"])
        #expect(RequestContext(for: sane).requestId == "abc-123")
        let insane = request("/view", headers: ["Host": "h", "X-Request-Id": "has space"])
        #expect(RequestContext(for: insane).requestId != "has space")
        let long = request("/view", headers: ["Host": "h", "X-Request-Id": String(repeating: "a", count: 129)])
        #expect(RequestContext(for: long).requestId.count < 64)
        #expect(RequestID.generate() != RequestID.generate())
        // A generated id: the process's 16 hex digits, '-', the counter in hex (growing; other
        // tests running in parallel draw ids too).
        let first = RequestID.generate(), second = RequestID.generate()
        for id in [first, second] {
            let parts = id.split(separator: "-")
            #expect(parts.count == 2 && parts[0].utf8.count == 16, "\(id)")
            #expect(id.utf8.allSatisfy { $0 == UInt8(ascii: "-") || ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }, "\(id)")
        }
        let counter = { (id: String) in UInt64(id.split(separator: "-")[1], radix: 16) }
        #expect((counter(second) ?? 0) > (counter(first) ?? .max))
        #expect(first.split(separator: "-")[0] == second.split(separator: "-")[0])
        let response = try await app.respond(to: sane, context: RequestContext(for: sane))
        #expect(response.headers["X-Request-Id"] == "abc-123")
    }

    @Test func problemDetailsExtensionsAndEscaping() {
        let problem = ProblemDetails(
            status: .badRequest, code: "bad_thing", detail: "a \"quoted\"\nline",
            extensions: [(name: "field", value: .string("uri")), (name: "limit", value: .int(3)), (name: "status", value: .int(1))]
        )
        #expect(String(decoding: problem.jsonBytes, as: UTF8.self)
            == #"{"type":"about:blank","title":"Bad Request","status":400,"detail":"a \"quoted\"\nline","code":"bad_thing","field":"uri","limit":3}"#)
    }

    @Test func methodClassesAreCaseSensitiveTokens() {
        for method in ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "CONNECT", "TRACE"] {
            #expect(HTTPMethod(method).isStandard, "\(method)")
            #expect(HTTPMethod(method).isKnown)
            #expect(HTTPMethod(method).boundedLabel == method)
            #expect(HTTPMethod.standard.contains(HTTPMethod(method)))
        }
        #expect(HTTPMethod.standard.count == 9)
        for other in ["get", "Get", "QUERY", "PROPFIND", "GETX", "", "POST "] {
            #expect(!HTTPMethod(other).isStandard, "\(other)")
            #expect(HTTPMethod(other).boundedLabel == "OTHER")
        }
        #expect(HTTPMethod("QUERY").isKnown)
        #expect(!HTTPMethod("PROPFIND").isKnown)
    }
}
