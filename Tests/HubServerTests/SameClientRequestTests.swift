import HubModel
import HubOperations
import Testing
@testable import HubEngine
@testable import HubHTTP
@testable import HubServer

/// `RequestBridge.isSameClientRequest`: the in-place check that lets a held session's poll be
/// answered without a view request made. It must agree with making the request and comparing
/// it (`ViewRequest.sameClientRequest(as:)`): never yes when that says no, and yes whenever
/// that says yes for valid UTF-8 fields, whether the fields were received (read in place) or
/// constructed.
@Suite struct SameClientRequestTests {
    static let bridge = RequestBridge(retained: RetainedHeaders(names: ["x-named", "X-Other"]))
    static let uri = "hub:home"

    /// Header sets that differ in every input a view request keeps, and in some it does not.
    static let variants: [[(String, String)]] = [
        [],
        [("User-Agent", "a")],
        [("Hub-Client", "ios/4.2.0")],
        [("hub-client", "ios/4.2.0")],
        [("Hub-Client", "ios/4.2.1")],
        [("Hub-Client", "ios/4.2.0"), ("User-Agent", "b"), ("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")],
        [("Hub-Client", String(repeating: "v", count: RetainedHeaders.maximumValueBytes + 1))],
        [("Hub-Connectivity", "offline")],
        [("Hub-Connectivity", " OFFLINE ")],
        [("Hub-Connectivity", "online")],
        [("Accept-Language", "en-GB,en;q=0.9")],
        [("Accept-Language", "en-GB, en;q=0.9")],
        [("Accept-Language", "sv")],
        [("X-Named", "1")],
        [("x-named", "1")],
        [("X-Named", "2")],
        [("X-Named", "1"), ("X-Other", "2")],
        [("X-Other", "2"), ("X-Named", "1")],
        [("X-Named", "1"), ("X-Named", "1")],
        [("X-Named", "1"), ("X-Named", "2")],
        [("X-Named", "2"), ("X-Named", "1")],
        [("X-Named", "1"), ("x-named", "2")],
        [("x-named", "2"), ("X-Named", "1")],
        [("X-Other", "2"), ("Hub-Client", "ios/4.2.0"), ("X-Named", "1")],
        [("Hub-Client", "ios/4.2.0"), ("X-Named", "1"), ("X-Other", "2")],
        [("X-Named", "1"), ("X-Other", "2"), ("X-Named", "3")],
        [("X-Named", "1"), ("X-Named", "3"), ("X-Other", "2")],
        [("X-Named", "caf\u{E9}")],
        [("X-Named", "cafe\u{301}")],
        [("Hub-Toggle", "a"), ("X-Named", "1")],
        [("X-Named", String(repeating: "w", count: RetainedHeaders.maximumValueBytes + 1))],
        // Server headers sent twice (the last is kept), and one longer than it keeps.
        [("Hub-Client", "ios/4.2.1"), ("Hub-Client", "ios/4.2.0")],
        [("Hub-Client", "ios/4.2.0"), ("Hub-Client", "ios/4.2.1")],
        [("Hub-Connectivity", "offline"), ("Hub-Connectivity", "online")],
        [("Hub-Connectivity", "online"), ("Hub-Connectivity", "offline")],
        [("Hub-Toggle", "a"), ("Hub-Toggle", "b"), ("X-Named", "1")],
        [("Hub-Connectivity", String(repeating: "o", count: RetainedHeaders.maximumConnectivityBytes + 1))],
        // At the per-request limits (the order received decides what is kept).
        Array(repeating: ("X-Named", "1"), count: RetainedHeaders.maximumHeaders),
        Array(repeating: ("X-Named", "1"), count: RetainedHeaders.maximumHeaders + 1),
        [("Hub-Client", "ios/4.2.0")] + Array(repeating: ("X-Named", "1"), count: RetainedHeaders.maximumHeaders),
        Array(repeating: ("X-Named", "1"), count: RetainedHeaders.maximumHeaders) + [("Hub-Client", "ios/4.2.0")],
        Array(repeating: ("X-Named", String(repeating: "w", count: 4000)), count: 4) + [("Hub-Client", "ios/4.2.0")],
        Array(repeating: ("X-Named", String(repeating: "w", count: 4000)), count: 4) + [("Hub-Toggle", String(repeating: "t", count: 1000))],
        [("Hub-Toggle", String(repeating: "t", count: 1000))] + Array(repeating: ("X-Named", String(repeating: "w", count: 4000)), count: 4),
        Array(repeating: ("X-Named", String(repeating: "w", count: 4000)), count: 5),
    ]

    /// `headers` as the parser hands them over (received, read in place) and as constructed.
    static func requests(_ headers: [(String, String)]) throws -> [HTTPRequest] {
        var text = "GET /view?session=x HTTP/1.1\r\nHost: h\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        var parser = RequestParser(limits: .init())
        parser.append(Array(text.utf8))
        guard case .request(let received) = try parser.parse() else {
            Issue.record("did not parse: \(text)")
            return []
        }
        let constructed = HTTPRequest(method: .get, target: "/view?session=x", headers: HTTPHeaders(headers.map { (name: $0.0, value: $0.1) }))
        return [received, constructed]
    }

    static func components(_ header: String?) -> ClientComponents? {
        header.map { ClientComponents(listed: ComponentList(header: $0)) }
    }

    /// Every pair of header sets: `body(baselineHeaders, baseline, headers, request, made)` with
    /// the baseline made from the first set, and each request of the second (received and
    /// constructed) with the view request made from it.
    static func forEachPair(
        _ body: ([(String, String)], ViewRequest, [(String, String)], HTTPRequest, ViewRequest) throws -> Void
    ) throws {
        let context = RequestContext(requestId: "r")
        for baselineHeaders in variants {
            let baselineRequest = try #require(try requests(baselineHeaders).first)
            let baseline = bridge.viewRequest(viewURI: uri, from: baselineRequest, context: context, components: nil)
            for headers in variants {
                for request in try requests(headers) {
                    let made = bridge.viewRequest(viewURI: uri, from: request, context: context, components: nil)
                    try body(baselineHeaders, baseline, headers, request, made)
                }
            }
        }
    }

    @Test("agrees with making the request and comparing it, for every pair of header sets, received or constructed")
    func agreesWithTheRequestMade() throws {
        var agreed = 0
        try Self.forEachPair { baselineHeaders, baseline, headers, request, made in
            let same = made.sameClientRequest(as: baseline)
            let inPlace = Self.bridge.isSameClientRequest(viewURI: Self.uri, from: request, user: nil, components: nil, as: baseline)
            // Equal only as Unicode text (a precomposed and a decomposed letter): in
            // place says no, and the request is made and compared instead.
            let onlyCanonicallyEqual = same && !Self.bytewiseEqual(made, baseline)
            #expect(inPlace == (same && !onlyCanonicallyEqual), "baseline \(baselineHeaders), request \(headers)")
            if inPlace { agreed += 1 }
        }
        // Not vacuous: most pairs differ, but every set against itself and the sets that differ
        // only in what is not kept (User-Agent, the trace context, OWS in a list) agree.
        #expect(agreed >= 2 * Self.variants.count)
    }

    @Test("the fingerprint read in place is the made request's, so it never rules out the same client request")
    func fingerprintAgreesWithTheRequestMade() throws {
        var compared = 0
        try Self.forEachPair { baselineHeaders, baseline, headers, request, made in
            let inPlace = Self.bridge.keptFieldsFingerprint(of: request)
            #expect(inPlace == KeptFieldsFingerprint(of: made), "request \(headers)")
            if Self.bridge.isSameClientRequest(viewURI: Self.uri, from: request, user: nil, components: nil, as: baseline) {
                #expect(inPlace == KeptFieldsFingerprint(of: baseline), "baseline \(baselineHeaders), request \(headers)")
                compared += 1
            }
        }
        #expect(compared >= 2 * Self.variants.count)
        // Fields a request keeps that differ in a value give another fingerprint.
        let one = try #require(try Self.requests([("X-Named", "1")]).first)
        let two = try #require(try Self.requests([("X-Named", "2")]).first)
        #expect(Self.bridge.keptFieldsFingerprint(of: one) != Self.bridge.keptFieldsFingerprint(of: two))
    }

    @Test("fields of different names in another order are the same client request; fields of one name in another order are not")
    func fieldOrder() throws {
        let context = RequestContext(requestId: "r")
        func same(_ baselineHeaders: [(String, String)], _ headers: [(String, String)]) throws -> [Bool] {
            let baseline = Self.bridge.viewRequest(
                viewURI: Self.uri, from: try #require(try Self.requests(baselineHeaders).first), context: context, components: nil)
            return try Self.requests(headers).flatMap { request in
                [
                    Self.bridge.viewRequest(viewURI: Self.uri, from: request, context: context, components: nil).sameClientRequest(as: baseline),
                    Self.bridge.isSameClientRequest(viewURI: Self.uri, from: request, user: nil, components: nil, as: baseline),
                ]
            }
        }
        // Two threads of one load generator (or two HTTP stacks of one app) send one client's
        // fields in other orders: RFC 9110 section 5.3 makes only the order within a name significant.
        #expect(try same([("Hub-Client", "ios/1"), ("X-Named", "1"), ("X-Other", "2")], [("X-Other", "2"), ("x-named", "1"), ("Hub-Client", "ios/1")]) == [false, false, false, false], "another name's case")
        #expect(try same([("Hub-Client", "ios/1"), ("X-Named", "1"), ("X-Other", "2")], [("X-Other", "2"), ("X-Named", "1"), ("Hub-Client", "ios/1")]) == [true, true, true, true])
        #expect(try same([("X-Named", "1"), ("User-Agent", "u"), ("X-Named", "2")], [("X-Named", "1"), ("X-Named", "2"), ("User-Agent", "u")]) == [true, true, true, true])
        #expect(try same([("X-Named", "1"), ("X-Named", "2")], [("X-Named", "2"), ("X-Named", "1")]) == [false, false, false, false])
        #expect(try same([("X-Named", "1"), ("x-named", "2")], [("x-named", "2"), ("X-Named", "1")]) == [false, false, false, false])
        let made = Self.bridge.viewRequest(
            viewURI: Self.uri, from: try #require(try Self.requests([("X-Other", "2"), ("x-named", "1"), ("X-Named", "0")]).first),
            context: context, components: nil)
        #expect(made.headers.map(\.name) == ["x-named", "X-Named", "X-Other"], "ordered by name, one name's fields as received")
        #expect(made.header("X-NAMED") == "1")
    }

    static func bytewiseEqual(_ left: ViewRequest, _ right: ViewRequest) -> Bool {
        left.headers.map { Array($0.name.utf8) + [0] + Array($0.value.utf8) } == right.headers.map { Array($0.name.utf8) + [0] + Array($0.value.utf8) }
            && left.client.map { Array($0.utf8) } == right.client.map { Array($0.utf8) }
    }

    @Test("the view URI and the listed components must be the baseline's too")
    func uriAndComponents() throws {
        let context = RequestContext(requestId: "r")
        let request = try #require(try Self.requests([("Hub-Client", "ios/1")]).first)
        let listed = Self.components("default:row, default:card")
        let baseline = Self.bridge.viewRequest(viewURI: Self.uri, from: request, context: context, components: listed)
        #expect(Self.bridge.isSameClientRequest(viewURI: Self.uri, from: request, user: nil, components: listed, as: baseline))
        #expect(Self.bridge.isSameClientRequest(viewURI: Self.uri, from: request, user: nil, components: Self.components("default:card,default:row"), as: baseline))
        #expect(!Self.bridge.isSameClientRequest(viewURI: "hub:other", from: request, user: nil, components: listed, as: baseline))
        #expect(!Self.bridge.isSameClientRequest(viewURI: Self.uri, from: request, user: nil, components: nil, as: baseline))
        #expect(!Self.bridge.isSameClientRequest(viewURI: Self.uri, from: request, user: nil, components: Self.components("default:row"), as: baseline))
    }

    @Test("Hub-Client is compared even when the kept headers are full and leave it out")
    func clientPastTheKeptHeaders() throws {
        let full = Array(repeating: ("X-Named", "1"), count: RetainedHeaders.maximumHeaders)
        let context = RequestContext(requestId: "r")
        for (first, second) in [(try Self.requests(full + [("Hub-Client", "ios/1")]), try Self.requests(full + [("Hub-Client", "ios/2")]))] {
            let baseline = Self.bridge.viewRequest(viewURI: Self.uri, from: try #require(first.first), context: context, components: nil)
            #expect(baseline.headers.count == RetainedHeaders.maximumHeaders && baseline.client == "ios/1")
            for request in second {
                #expect(!Self.bridge.viewRequest(viewURI: Self.uri, from: request, context: context, components: nil).sameClientRequest(as: baseline))
                #expect(!Self.bridge.isSameClientRequest(viewURI: Self.uri, from: request, user: nil, components: nil, as: baseline))
            }
            for request in first {
                #expect(Self.bridge.isSameClientRequest(viewURI: Self.uri, from: request, user: nil, components: nil, as: baseline))
            }
        }
    }

    @Test("a value that is not valid UTF-8 is never taken for the baseline's (made and compared instead)")
    func invalidUTF8() throws {
        var bytes = Array("GET /view HTTP/1.1\r\nHost: h\r\nX-Named: a".utf8)
        bytes += [0xFF, 0xFE]
        bytes += Array("\r\n\r\n".utf8)
        var parser = RequestParser(limits: .init())
        parser.append(bytes)
        guard case .request(let request) = try parser.parse() else {
            Issue.record("did not parse")
            return
        }
        let baseline = Self.bridge.viewRequest(viewURI: Self.uri, from: request, context: RequestContext(requestId: "r"), components: nil)
        #expect(baseline.headers.first?.value == "a\u{FFFD}\u{FFFD}", "repaired when made")
        #expect(!Self.bridge.isSameClientRequest(viewURI: Self.uri, from: request, user: nil, components: nil, as: baseline))
    }

    @Test("a baseline that carries a trace context field (an app's own request) compares unequal in place")
    func baselineWithTraceContext() throws {
        let request = try #require(try Self.requests([("X-Named", "1")]).first)
        let baseline = ViewRequest(viewURI: Self.uri, headers: [("traceparent", "00-1-2-01"), ("X-Named", "1")])
        #expect(!Self.bridge.isSameClientRequest(viewURI: Self.uri, from: request, user: nil, components: nil, as: baseline))
    }
}
