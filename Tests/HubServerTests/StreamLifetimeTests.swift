import Foundation
@testable import HubServer
import HubTestSupport
import Testing

/// `timeouts.streamSeconds`: behind replicas, an event stream opened while its
/// session's replica was away must find its way back; the server ends each stream after a while,
/// and the client's reconnection with `Last-Event-ID` loses nothing.
@Suite("SSE stream lifetime")
struct StreamLifetimeTests {
    @Test("a stream ends by itself after timeouts.streamSeconds; reconnecting with Last-Event-ID gets the next change, no duplicate")
    func streamEndsAndResumes() async throws {
        let server = """
            { "host": "127.0.0.1", "port": 0, "timeouts": { "drainSeconds": 1, "streamSeconds": 1 },
              "log": { "level": "error" } }
            """
        try await withHub(Hardening.config(server: server), extensions: Hardening.extensions(), transport: .socket) { client, _ in
            let session = try #require(try await client.view("hub:todo").header("Hub-Session"))
            let stream = try await client.events(session: session)
            defer { stream.close() }
            let first = try await stream.next()
            #expect(first.event == "view")
            // No timing asserted: the stream ends (after 0.8-1 s), whatever the load; a read that
            // times out (15 s) is read again, for a minute at most.
            var ended = false
            for _ in 0..<4 where !ended {
                do {
                    _ = try await stream.next()
                } catch let error as HarnessError {
                    ended = error.description.contains("ended")
                }
            }
            #expect(ended, "the server ended the stream")

            let resumed = try await client.events(session: session, lastEventID: first.id)
            defer { resumed.close() }
            #expect(resumed.status == 200)
            let added = try await client.action(#"{"session":"\#(session)","action":"todo:add","custom":{"title":"after"}}"#)
            #expect(added.status == 200)
            // The resumed stream may itself end (after 0.8-1 s) before the change reaches it on a
            // loaded machine: the client then reconnects with the same id, as EventSource does.
            var next: SSEStream.Event?
            var reconnected = resumed
            for _ in 0..<10 where next == nil {
                do {
                    next = try await reconnected.next()
                } catch let error as HarnessError where error.description.contains("ended") {
                    reconnected = try await client.events(session: session, lastEventID: first.id)
                }
            }
            defer { reconnected.close() }
            let received = try #require(next)
            #expect(received.id != first.id, "the view the client had is not sent again")
            #expect(received.data.contains("after"))
        }
    }

    @Test("the lifetime of each stream is drawn between 80% and 100% of streamSeconds; 0 is no limit")
    func lifetimeRange() {
        #expect(ViewEndpoints.streamLifetime(maximum: 0) == nil)
        for _ in 0..<100 {
            let lifetime = ViewEndpoints.streamLifetime(maximum: 10)
            #expect(lifetime.map { $0 >= .seconds(8) && $0 <= .seconds(10) } == true)
        }
    }
}
