import HubModel
import Testing
@testable import HubEngine
@testable import HubHTTP
@testable import HubServer

/// `SameClientMemo`: `RequestBridge.isSameClientRequest` answers a request whose field lines are
/// those of the last request it found alike (the trace context aside) from the lines, and only
/// when every other input is the same: after any request was found alike, every request still
/// gets the answer making the request and comparing it would give.
@Suite struct SameClientMemoTests {
    static let uri = "hub:home"
    static let context = RequestContext(requestId: "r")

    static func received(_ headers: [(String, String)]) throws -> HTTPRequest {
        try #require(try SameClientRequestTests.requests(headers).first)
    }

    @Test("after each request found alike, every other request still gets the answer its made request gives")
    func answersAfterEveryRememberedRequest() throws {
        // One bridge for the whole test: every remembered request stays in its memo for the next
        // (and its memo never backs off, so that every repeat is answered from the lines).
        let bridge = RequestBridge(retained: RetainedHeaders(names: ["x-named", "X-Other"]), sameClients: .neverBackingOff)
        let variants = SameClientRequestTests.variants.prefix(31)
        var hits = 0
        for baselineHeaders in variants {
            let baseline = bridge.viewRequest(
                viewURI: Self.uri, from: try Self.received(baselineHeaders), context: Self.context, components: nil)
            for first in variants {
                let remembered = try Self.received(first)
                _ = bridge.isSameClientRequest(viewURI: Self.uri, from: remembered, user: nil, components: nil, as: baseline)
                for headers in variants {
                    for request in try SameClientRequestTests.requests(headers) {
                        let made = bridge.viewRequest(viewURI: Self.uri, from: request, context: Self.context, components: nil)
                        let expected = made.sameClientRequest(as: baseline) && SameClientRequestTests.bytewiseEqual(made, baseline)
                        if case .alike = bridge.sameClients.answer(
                            request.headers, viewURI: Self.uri, user: nil, components: nil, baseline: baseline, answerAlike: false)
                        {
                            hits += 1
                            #expect(expected, "answered from the lines: baseline \(baselineHeaders), after \(first), request \(headers)")
                        }
                        let inPlace = bridge.isSameClientRequest(viewURI: Self.uri, from: request, user: nil, components: nil, as: baseline)
                        #expect(inPlace == expected, "baseline \(baselineHeaders), after \(first), request \(headers)")
                    }
                }
                // Put the remembered request back for the next `first`'s round.
                _ = bridge.isSameClientRequest(viewURI: Self.uri, from: remembered, user: nil, components: nil, as: baseline)
            }
        }
        #expect(hits >= variants.count, "requests answered from the lines of one found alike before")
    }

    @Test("a repeat with another trace context is answered from the lines; any other input differing is not")
    func whatTheLinesStandFor() throws {
        let bridge = RequestBridge(retained: RetainedHeaders(names: ["x-named"]))
        let fields = [("Hub-Client", "ios/1"), ("X-Named", "1"), ("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")]
        let listed = SameClientRequestTests.components("default:row")
        let request = try Self.received(fields)
        let baseline = bridge.viewRequest(viewURI: Self.uri, from: request, context: Self.context, components: listed)
        #expect(bridge.isSameClientRequest(viewURI: Self.uri, from: request, user: nil, components: listed, as: baseline))

        // Each check on a bridge of its own that found `request` alike first (no back-off in between).
        func remembers(_ headers: [(String, String)], uri: String = Self.uri, user: HubUser? = nil,
                       components: ClientComponents? = listed, asked: ViewRequest? = nil, answerAlike: Bool = false) throws -> Bool {
            let fresh = RequestBridge(retained: RetainedHeaders(names: ["x-named"]))
            #expect(fresh.isSameClientRequest(viewURI: Self.uri, from: request, user: nil, components: listed, as: baseline))
            guard case .alike = fresh.sameClients.answer(
                try Self.received(headers).headers, viewURI: uri, user: user, components: components, baseline: asked ?? baseline,
                answerAlike: answerAlike)
            else { return false }
            return true
        }
        #expect(try remembers(fields))
        #expect(try remembers([fields[0], fields[1], ("traceparent", "00-11111111111111111111111111111111-2222222222222222-01")]))
        #expect(try remembers([fields[0], fields[1]]))
        #expect(try !remembers([fields[0], ("X-Named", "2"), fields[2]]), "a kept field's value")
        #expect(try !remembers([("Hub-Client", "ios/2"), fields[1], fields[2]]), "the client")
        #expect(try !remembers(fields + [("Accept-Language", "sv")]), "a field more")
        #expect(try !remembers(fields, uri: "hub:other"))
        let user = HubUser(subject: "u", digest: "d", stateName: "s")
        #expect(try !remembers(fields, user: user))
        #expect(try !remembers(fields, components: nil))
        #expect(try !remembers(fields, components: SameClientRequestTests.components("default:card")))
        #expect(try !remembers(fields, answerAlike: true))
        // A baseline equal to the remembered one but made apart is another baseline.
        let equal = bridge.viewRequest(viewURI: Self.uri, from: request, context: Self.context, components: listed)
        #expect(equal.sameClientRequest(as: baseline))
        #expect(try !remembers(fields, asked: equal))
        #expect(try remembers(fields, asked: baseline))
        // Fields made in code are never answered from the memo (nor kept in it).
        let constructed = HTTPRequest(
            method: .get, target: "/view?session=x", headers: HTTPHeaders(fields.map { (name: $0.0, value: $0.1) }))
        #expect(bridge.isSameClientRequest(viewURI: Self.uri, from: constructed, user: nil, components: listed, as: baseline))
        guard case .unknown = bridge.sameClients.answer(
            constructed.headers, viewURI: Self.uri, user: nil, components: listed, baseline: baseline, answerAlike: false)
        else {
            Issue.record("fields made in code answered from the lines")
            return
        }
        guard case .unknown = bridge.sameClients.answer(
            request.headers, viewURI: Self.uri, user: nil, components: listed, baseline: baseline, answerAlike: false)
        else {
            Issue.record("a request whose fields were made in code did not replace the lines")
            return
        }
    }

    @Test("a thread whose requests keep differing stops comparing them, answers each rightly meanwhile, and takes up a repeating client again")
    func backingOff() throws {
        let bridge = RequestBridge(retained: RetainedHeaders(names: ["hub-client-id"]))
        let memo = bridge.sameClients
        let apps = try (0..<40).map { try Self.received([("Hub-Client-Id", "client-\($0)")]) }
        let baselines = apps.map { bridge.viewRequest(viewURI: Self.uri, from: $0, context: Self.context, components: nil) }
        var skipped = 0
        for (index, request) in apps.enumerated() {
            // Each app against its own baseline: alike; against the one before: not.
            #expect(bridge.isSameClientRequest(viewURI: Self.uri, from: request, user: nil, components: nil, as: baselines[index]))
            if index > 0 {
                #expect(!bridge.isSameClientRequest(viewURI: Self.uri, from: request, user: nil, components: nil, as: baselines[index - 1]))
            }
        }
        // Backing off now: most requests are not compared (nor kept), one in `retryEvery` is.
        for _ in 0..<Int(memo.retryEvery) {
            if case .unknown(keep: false) = memo.answer(
                apps[0].headers, viewURI: Self.uri, user: nil, components: nil, baseline: baselines[0], answerAlike: false)
            {
                skipped += 1
            }
        }
        #expect(skipped == Int(memo.retryEvery) - 1)
        // One client polling again: kept at the next retry, answered from its lines at the one
        // after, and from then on every time.
        for _ in 0...(2 * Int(memo.retryEvery)) {
            #expect(bridge.isSameClientRequest(viewURI: Self.uri, from: apps[7], user: nil, components: nil, as: baselines[7]))
        }
        var answeredFromLines = true
        for _ in 0..<Int(memo.retryEvery) {
            guard case .alike = memo.answer(
                apps[7].headers, viewURI: Self.uri, user: nil, components: nil, baseline: baselines[7], answerAlike: false)
            else {
                answeredFromLines = false
                break
            }
        }
        #expect(answeredFromLines)
    }

    @Test("what a user or other components would change is never answered from another's lines")
    func userAndComponents() throws {
        let bridge = RequestBridge(retained: RetainedHeaders(names: []))
        let request = try Self.received([("Hub-Client", "ios/1")])
        let user = HubUser(subject: "u", digest: "d", stateName: "s")
        let mine = bridge.viewRequest(viewURI: Self.uri, from: request, context: Self.context, components: nil).with(user: user)
        #expect(bridge.isSameClientRequest(viewURI: Self.uri, from: request, user: user, components: nil, as: mine))
        #expect(!bridge.isSameClientRequest(viewURI: Self.uri, from: request, user: nil, components: nil, as: mine))
        #expect(!bridge.isSameClientRequest(
            viewURI: Self.uri, from: request, user: user, components: SameClientRequestTests.components("default:row"), as: mine))
        #expect(bridge.isSameClientRequest(viewURI: Self.uri, from: request, user: user, components: nil, as: mine))
    }
}
