import HubEngine
import HubHTTP
import HubModel
@testable import HubServer
import HubTestSupport
import Testing

/// A held session polled over a socket: polls with the baseline's headers (whatever the trace
/// context and the headers nothing keeps) are answered on the connection's loop with the settled
/// view, and so are polls whose kept headers differ, which the session records instead (the
/// engine's `HeldBaselineTests` and `SameClientRequestTests` check what is recorded and when).
@Suite("Held polls and their headers")
struct HeldPollHeadersTests {
    /// Writes the `Hub-Client` and `X-Named` each run sees into the view's custom data.
    struct ClientProbe: ContentOperation {
        var name: String { "clientProbe" }

        func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
            builder.setCustomDataValue(.string(context.request.client ?? "none"), forKey: "client")
            builder.setCustomDataValue(.string(context.request.header("X-Named") ?? "none"), forKey: "named")
        }
    }

    @Test("the baseline's headers, other kept headers and the baseline again are each answered now with the settled view")
    func pollsOverASocket() async throws {
        let upstream = try makeStandardUpstream()
        defer { upstream.stop() }
        var config = Fixture.config(upstream: upstream.base)
        config.feature("probe", """
            { "id": "probe", "title": "Probe", "match": { "root": "hub:probe" }, "reload": "never",
              "operations": [
                { "kind": "static", "json": { "body": [ { "id": "row", "text": { "title": "Row" } } ] } },
                { "kind": "swift", "name": "clientProbe" } ] }
            """)
        var extensions = Fixture().extensions
        extensions.registerOperation("clientProbe") { _ in ClientProbe() }
        extensions.retainRequestHeaders("X-Named")
        try await withHub(config, extensions: extensions, transport: .socket) { client, app in
            let first = [("Hub-Client", "ios/1.0"), ("X-Named", "a")]
            let opened = try await client.view("hub:probe", headers: first)
            let token = try #require(opened.header("Hub-Session"))
            #expect(try await client.session(token, headers: first).status == 200)  // stores it; publishes the settled view
            let tasks = app.http.requestsAnsweredLater
            // The baseline again, with a trace context and another User-Agent (neither kept): answered now.
            for trace in ["00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203332-01"] {
                let again = try await client.session(token, headers: first + [("traceparent", trace), ("User-Agent", trace)])
                #expect(again.status == 200)
                #expect(try again.json()["custom"]?["client"]?.stringValue == "ios/1.0")
            }
            // A kept header differs: answered now too (reload never), and recorded.
            let other = try await client.session(token, headers: [("Hub-Client", "ios/2.0"), ("X-Named", "b")])
            #expect(other.status == 200)
            #expect(app.http.requestsAnsweredLater == tasks, "a settled view's poll started a task")
            // Back to the baseline's headers after another was recorded: still answered now.
            let back = try await client.session(token, headers: first)
            #expect(back.status == 200)
            #expect(back.body == other.body, "the same view for either client (reload never)")
            #expect(app.http.requestsAnsweredLater == tasks)
        }
    }
}
