import Foundation
import HubModel
import HubTestSupport
import Testing

/// Every error row of the API: status, `application/problem+json`, `code`.
@Suite("Errors")
struct ErrorTests {
    @Test("400: missing, empty, repeated uri or session; invalid percent escapes")
    func badQueries() async throws {
        try await withStandardHub { client, _, _ in
            try expectProblem(try await client.get("/view"), 400, "missing_uri")
            try expectProblem(try await client.get("/view?uri="), 400, "invalid_uri")
            try expectProblem(try await client.get("/view?uri=hub:static&uri=hub:static"), 400, "duplicate_parameter")
            try expectProblem(try await client.get("/view?session=a&session=b"), 400, "duplicate_parameter")
            try expectProblem(try await client.get("/view?uri=hub:%zzstatic"), 400)
            try expectProblem(try await client.get("/view?uri=hub:static%2"), 400)
            try expectProblem(try await client.get("/view?uri=hub:static%00"), 400)
        }
    }

    @Test("400: invalid JSON and duplicate keys in a body")
    func badJSON() async throws {
        try await withStandardHub { client, _, _ in
            try expectProblem(try await client.action(#"{"session": "#), 400, "invalid_json")
            try expectProblem(
                try await client.action(#"{"session":"a","session":"b","action":"test:ok"}"#), 400, "invalid_json")
            try expectProblem(try await client.post("/view/next-page", "not json"), 400, "invalid_json")
        }
    }

    @Test("404: unknown feature, unknown session, unknown path")
    func notFound() async throws {
        try await withStandardHub { client, _, _ in
            try expectProblem(try await client.view("hub:nothing-here"), 404, "feature_not_found")
            try expectProblem(try await client.session("no-such-session"), 404, "session_not_found")
            try expectProblem(try await client.get("/nowhere"), 404, "route_not_found")
        }
    }

    @Test("405 with Allow")
    func methodNotAllowed() async throws {
        try await withStandardHub { client, _, _ in
            let health = try await client.post("/health", "{}")
            try expectProblem(health, 405, "method_not_allowed")
            #expect(health.header("Allow")?.contains("GET") == true, "\(health)")
            let action = try await client.get("/action")
            try expectProblem(action, 405, "method_not_allowed")
            #expect(action.header("Allow")?.contains("POST") == true, "\(action)")
        }
    }

    @Test("413: a body over limits.bodyBytes")
    func payloadTooLarge() async throws {
        let server = #"{ "host": "127.0.0.1", "port": 0, "limits": { "bodyBytes": 256 }, "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" } }"#
        try await withStandardHub(server: server) { client, _, _ in
            let padding = String(repeating: "x", count: 1000)
            let response = try await client.action(#"{"session":"s","action":"test:ok","custom":{"pad":"\#(padding)"}}"#)
            try expectProblem(response, 413)
            // The server keeps serving.
            #expect(try await client.get("/health").status == 200)
        }
    }

    @Test("415: a body that is not application/json")
    func unsupportedMediaType() async throws {
        try await withStandardHub { client, _, _ in
            try expectProblem(
                try await client.post("/action", #"{"session":"s","action":"test:ok"}"#, contentType: "text/plain"), 415,
                "unsupported_media_type")
            try expectProblem(
                try await client.post("/action", #"{"session":"s","action":"test:ok"}"#, contentType: nil), 415,
                "unsupported_media_type")
        }
    }

    @Test("422: valid JSON of the wrong shape")
    func wrongShape() async throws {
        try await withStandardHub { client, _, _ in
            let session = try #require(try await client.view("hub:actions").header("Hub-Session"))
            try expectProblem(try await client.action("[]"), 422, "invalid_body")
            try expectProblem(try await client.action(#"{"session":5,"action":"test:ok"}"#), 422, "invalid_body")
            try expectProblem(try await client.action(#"{"action":"test:ok"}"#), 422, "invalid_body")
            try expectProblem(try await client.action(#"{"session":"\#(session)"}"#), 422, "invalid_body")
            try expectProblem(
                try await client.action(#"{"session":"\#(session)","action":"noColon"}"#), 422, "invalid_body")
            try expectProblem(
                try await client.action(#"{"session":"\#(session)","action":"test:ok","custom":[1]}"#), 422, "invalid_body")
            try expectProblem(try await client.post("/view/next-page", "{}"), 422, "invalid_body")
        }
    }

    @Test("502: upstream 500, invalid JSON, connection refused; the detail names the operation")
    func badGateway() async throws {
        try await withStandardHub { client, _, _ in
            for uri in ["hub:fail", "hub:badjson", "hub:refused"] {
                let response = try await client.view(uri)
                let problem = try expectProblem(response, 502, "upstream_error")
                let detail = problem["detail"]?.stringValue ?? ""
                #expect(detail.contains("operation 0") && detail.contains("remote"), "\(uri): \(detail)")
            }
        }
    }

    @Test("504: an upstream slower than timeoutMs")
    func gatewayTimeout() async throws {
        try await withStandardHub { client, _, _ in
            let response = try await client.view("hub:slow")
            let problem = try expectProblem(response, 504, "upstream_timeout")
            let detail = problem["detail"]?.stringValue ?? ""
            #expect(detail.contains("operation 0") && detail.contains("remote"), "\(detail)")
        }
    }
}
