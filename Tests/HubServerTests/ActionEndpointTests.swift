import Foundation
import HubEngine
import HubModel
import HubTestSupport
import Testing

/// `POST /action`: custom actions, selections, vetoes, reschedules and remote actions.
@Suite("Actions over HTTP")
struct ActionEndpointTests {
    private func openActions(_ client: HubClient) async throws -> String {
        let response = try await client.view("hub:actions")
        #expect(response.status == 200, "\(response)")
        return try #require(response.header("Hub-Session"))
    }

    @Test("a custom action is performed by its namespace's factory")
    func customAction() async throws {
        try await withStandardHub { client, _, fixture in
            let session = try await openActions(client)
            let response = try await client.action(#"{"session":"\#(session)","action":"test:ok","custom":{"k":1}}"#)
            #expect(response.status == 200, "\(response)")
            #expect(response.header("Hub-Session") == session)
            #expect(response.header("ETag") != nil)
            let body = try response.json()
            #expect(body["performed"]?.boolValue == true)
            #expect(body["view"]?.bodyIDs.contains("row1") == true)
            #expect(fixture.actionLog.all == ["ok"])

            let notPerformed = try await client.action(#"{"session":"\#(session)","action":"test:no"}"#)
            #expect(try notPerformed.json()["performed"]?.boolValue == false)
        }
    }

    @Test("a selection tries target.actions in order until one is performed")
    func selection() async throws {
        try await withStandardHub { client, _, fixture in
            let session = try await openActions(client)
            let response = try await client.action(#"{"session":"\#(session)","component":"row1"}"#)
            #expect(response.status == 200, "\(response)")
            #expect(try response.json()["performed"]?.boolValue == true)
            #expect(fixture.actionLog.all == ["no", "ok"], "stops at the first performed action")
        }
    }

    @Test("a selection where no action is performed answers performed: false")
    func selectionNotPerformed() async throws {
        try await withStandardHub { client, _, fixture in
            let session = try await openActions(client)
            let response = try await client.action(#"{"session":"\#(session)","component":"row2"}"#)
            #expect(response.status == 200, "\(response)")
            #expect(try response.json()["performed"]?.boolValue == false)
            #expect(fixture.actionLog.all == ["no"])
        }
    }

    @Test("a vetoed action is not executed, answers performed: false, and still reschedules observers")
    func veto() async throws {
        try await withStandardHub { client, _, fixture in
            let session = try await openActions(client)
            let response = try await client.action(#"{"session":"\#(session)","action":"test:vetoed"}"#)
            #expect(response.status == 200, "\(response)")
            let body = try response.json()
            #expect(body["performed"]?.boolValue == false)
            #expect(fixture.actionLog.all.isEmpty, "vetoed: not executed")
            #expect(fixture.observer.count == 2, "shown to observers: rescheduled")
            #expect(body["view"]?["custom"]?["runs"]?.intValue == 2)
        }
    }

    @Test("hub:reload re-runs the whole chain")
    func builtInReload() async throws {
        try await withStandardHub { client, _, fixture in
            let session = try await openActions(client)
            let response = try await client.action(#"{"session":"\#(session)","action":"hub:reload"}"#)
            #expect(response.status == 200, "\(response)")
            #expect(fixture.observer.count == 2)
        }
    }

    @Test("remote actions: 2xx performed, 4xx not performed, 5xx 502; the upstream gets the action JSON")
    func remoteActions() async throws {
        try await withStandardHub { client, upstream, _ in
            let session = try await openActions(client)
            let ok = try await client.action(#"{"session":"\#(session)","action":"remote:ok","custom":{"n":7}}"#)
            #expect(ok.status == 200, "\(ok)")
            #expect(try ok.json()["performed"]?.boolValue == true)
            let hit = try #require(upstream.log.hits(path: "/act/ok").first)
            #expect(hit.method == "POST")
            let sent = try JSONParser().parse(hit.body)
            #expect(sent["action"]?.stringValue == "remote:ok")
            #expect(sent["viewURI"]?.stringValue == "hub:actions")
            #expect(sent["session"]?.stringValue == SessionToken.identifier(of: session), "the session id, not the whole token")
            #expect(sent["custom"]?["n"]?.intValue == 7)

            let no = try await client.action(#"{"session":"\#(session)","action":"remote:no"}"#)
            #expect(no.status == 200, "\(no)")
            #expect(try no.json()["performed"]?.boolValue == false)

            let boom = try await client.action(#"{"session":"\#(session)","action":"remote:boom"}"#)
            try expectProblem(boom, 502, "upstream_error")
        }
    }

    @Test("unknown action namespace, action name or component is 404; unknown session without uri is 404")
    func notFound() async throws {
        try await withStandardHub { client, _, _ in
            let session = try await openActions(client)
            try expectProblem(
                try await client.action(#"{"session":"\#(session)","action":"nope:x"}"#), 404, "action_not_found")
            try expectProblem(
                try await client.action(#"{"session":"\#(session)","action":"test:missing"}"#), 404, "action_not_found")
            try expectProblem(
                try await client.action(#"{"session":"\#(session)","component":"ghost"}"#), 404, "component_not_found")
            try expectProblem(
                try await client.action(#"{"session":"gone","action":"test:ok"}"#), 404, "session_not_found")
        }
    }

    @Test("an unknown session with uri opens a new session for that URI")
    func unknownSessionWithURI() async throws {
        try await withStandardHub { client, _, fixture in
            let response = try await client.action(#"{"session":"gone","uri":"hub:actions","action":"test:ok"}"#)
            #expect(response.status == 200, "\(response)")
            let session = try #require(response.header("Hub-Session"))
            #expect(session != "gone")
            #expect(try response.json()["performed"]?.boolValue == true)
            #expect(fixture.actionLog.all == ["ok"])
            #expect(try await client.session(session).status == 200)
        }
    }
}
