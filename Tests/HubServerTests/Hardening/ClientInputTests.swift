import Foundation
import HubEngine
import HubModel
import HubServer
import HubTestSupport
import Testing

/// Client-chosen input never ends the process and never becomes unbounded server state:
/// each case over a real socket, followed by a request that proves the server still serves.
@Suite("Hardening: client input")
struct ClientInputTests {
    static let acceptLanguages = [";", "en,;", ",", ";;", ";q=1", "=;", "en;q=", "*;q=0.5,;;,", " , ; ", "sv;q=2,en;q=x"]

    @Test("an empty or broken Accept-Language element answers on every view and action endpoint")
    func acceptLanguageEdgeCases() async throws {
        try await withHub(Hardening.config(), extensions: Hardening.extensions(), transport: .socket) { client, _ in
            for value in Self.acceptLanguages {
                let opened = try await client.view("hub:todo", headers: [("Accept-Language", value)])
                #expect(opened.status == 200, "Accept-Language '\(value)': \(opened)")
                let session = try #require(opened.header("Hub-Session"))
                let again = try await client.session(session, headers: [("Accept-Language", value)])
                #expect(again.status == 200, "Accept-Language '\(value)': \(again)")
                let action = try await client.action(
                    #"{"session":"\#(session)","action":"todo:add","custom":{"title":"x"}}"#,
                    headers: [("Accept-Language", value)])
                #expect(action.status == 200, "Accept-Language '\(value)': \(action)")
                let head = try await client.send("HEAD", "/view?uri=hub:static", headers: [("Accept-Language", value)])
                #expect(head.status == 200)
            }
            #expect(try await client.get("/health").status == 200)
        }
    }

    @Test("Accept-Language keeps q-value order, drops q=0 and malformed weights")
    func acceptLanguageOrder() async throws {
        try await withHub(Hardening.config(), extensions: Hardening.extensions(), transport: .socket) { client, _ in
            let view = try await client.view("hub:headers", headers: [("Accept-Language", "de;q=0.5, sv, fr;q=0, en;q=0.9, ;, x;q=7")])
            let languages = try view.json()["custom"]?["languages"]?.arrayValue?.compactMap(\.stringValue)
            #expect(languages == ["sv", "en", "de"])
        }
    }

    @Test("random method tokens and action namespaces leave /metrics small and unlabelled by them")
    func metricLabelsStayBounded() async throws {
        // 150 actions from one client: past the default limits.actionsPerClient (a burst of 60).
        let server = """
            { "host": "127.0.0.1", "port": 0, "timeouts": { "drainSeconds": 1 }, "log": { "level": "error" },
              "limits": { "actionsPerClient": { "perSecond": 1000, "burst": 1000 } } }
            """
        try await withHub(Hardening.config(server: server), extensions: Hardening.extensions(), transport: .socket) { client, _ in
            let before = try await client.get("/metrics").body.count
            for index in 0..<150 {
                let method = "X" + String(repeating: "Q", count: 200) + String(index)
                let response = try await client.send(method, "/view?uri=hub:static")
                #expect(response.status == 405 || response.status == 501 || response.status == 404, "\(response)")
            }
            let opened = try await client.view("hub:todo")
            let session = try #require(opened.header("Hub-Session"))
            for index in 0..<150 {
                let namespace = String(repeating: "n", count: 2000) + String(index)
                let response = try await client.action(#"{"session":"\#(session)","action":"\#(namespace):go"}"#)
                #expect(response.status == 404, "\(response)")
            }
            let metrics = try await client.get("/metrics").text
            #expect(!metrics.contains("QQQQ"))
            #expect(!metrics.contains("nnnn"))
            #expect(metrics.contains(#"method="OTHER""#))
            #expect(metrics.contains(#"namespace="unknown""#))
            #expect(metrics.utf8.count < before + 16 * 1024, "metrics grew to \(metrics.utf8.count) bytes from \(before)")
        }
    }

    @Test("sessions keep Hub-* headers, the declared ones and short values only")
    func retainedHeaders() async throws {
        try await withHub(Hardening.config(), extensions: Hardening.extensions(), transport: .socket) { client, _ in
            var headers: [(String, String)] = (0..<20).map { ("X-Junk-\($0)", String(repeating: "j", count: 1000)) }
            headers.append(("X-Declared", "yes"))
            headers.append(("Hub-Client", "ios/1.0"))
            headers.append(("Hub-Long", String(repeating: "l", count: 5000)))
            let view = try await client.view("hub:headers", headers: headers)
            #expect(view.status == 200, "\(view)")
            let names = try view.json()["custom"]?["headers"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(names.contains("x-declared"))
            #expect(names.contains("hub-client"))
            #expect(!names.contains("hub-long"), "a value over 4 KiB is not kept")
            #expect(!names.contains { $0.hasPrefix("x-junk") })
            #expect(!names.contains("host"))
        }
    }

    @Test("a remote action name outside [A-Za-z0-9_-] is an unknown action, never part of a URL")
    func remoteActionNamesAreRestricted() async throws {
        try await withHub(Hardening.config(), extensions: Hardening.extensions(), transport: .socket) { client, _ in
            let opened = try await client.view("hub:static")
            let session = try #require(opened.header("Hub-Session"))
            for name in ["..%2Fadmin", "../admin", "a?b=c", "a/b", "a#b", "a b"] {
                let response = try await client.action(#"{"session":"\#(session)","action":"remote:\#(name)"}"#)
                try expectProblem(response, 404, "action_not_found")
            }
        }
    }
}
