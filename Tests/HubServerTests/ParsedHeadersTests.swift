import HubHTTP
import HubModel
import HubSync
import HubTestSupport
import Testing
@testable import HubServer

/// `Hub-Components` and `Accept-Language` are read once per distinct header text
/// (`ParsedHeaders`): a header read from the cache names what reading it anew names, whatever
/// came between.
@Suite struct ParsedHeadersTests {
    @Test("a remembered header's list is the list read anew; items are trimmed, unparseable ones skipped")
    func rememberedListsAreReadLists() {
        let cache = ParsedHeaders(ComponentList.init(header:))
        let header = " hub:row , hub:card,not-an-identifier,, app:banner\t"
        let first = cache.parsed(header)
        let again = cache.parsed(header)
        let fresh = ComponentList(header: header)
        for list in [first, again] {
            #expect(list.identifiers == fresh.identifiers)
            #expect(list.variant == fresh.variant)
        }
        #expect(fresh.variant == "|app:banner,hub:card,hub:row")
        #expect(fresh.identifiers.count == 3)
    }

    @Test("more distinct headers than a stripe keeps, and headers too long to keep, are each read right")
    func manyAndLongHeaders() {
        let cache = ParsedHeaders(ComponentList.init(header:))
        for round in 0..<2 {
            for index in 0..<(3 * ParsedHeaders<ComponentList>.capacity) {
                let list = cache.parsed("hub:row\(index), hub:card")
                #expect(list.variant == "|hub:card,hub:row\(index)", "round \(round), header \(index)")
            }
        }
        // Past the kept length: read each time, the same answer (and at most 512 items read).
        let many = (0..<600).map { "hub:c\($0)" }.joined(separator: ",")
        #expect(many.utf8.count > ParsedHeaders<ComponentList>.maximumHeaderBytes)
        let long = cache.parsed(many)
        #expect(long.identifiers.count == ComponentList.maximumComponents)
        #expect(cache.parsed(many).variant == long.variant)
    }

    @Test("a client's components and its kill switches make one variant; no header and no switch make none")
    func variants() {
        let killed: Set<ComponentIdentifier> = [ComponentIdentifier(string: "hub:card")!]
        let listed = ComponentList(header: "hub:row,hub:card")
        #expect(ClientComponents(listed: listed, killed: killed).variant == "|hub:card,hub:row!hub:card")
        #expect(ClientComponents(listed: nil, killed: killed).variant == "!hub:card")
        #expect(ClientComponents(listed: listed).variant == "|hub:card,hub:row")
        #expect(ClientComponents(listed: listed).replacementReason(for: ComponentIdentifier(string: "hub:other")!) == .unsupported)
        #expect(ClientComponents(listed: listed, killed: killed).replacementReason(for: ComponentIdentifier(string: "hub:card")!) == .killSwitch)
        #expect(ClientComponents(listed: nil).replacementReason(for: ComponentIdentifier(string: "hub:other")!) == nil)
    }

    @Test("Accept-Language tags come out the same from the cache, for short, repeated, many and long headers")
    func languagesFromTheCache() {
        let bridge = RequestBridge(retained: RetainedHeaders(names: []))
        let headers = ["en-GB,en;q=0.9", "sv;q=0.5, *;q=0.9, de", "fr;q=0, it", "", " , ;q=1"]
            + (0..<40).map { "x\($0);q=0.\($0 % 10), y" }
            + [(0..<300).map { "t\($0);q=0.5" }.joined(separator: ",")]
        for round in 0..<2 {
            for header in headers {
                #expect(bridge.languageLists.parsed(header) == RequestBridge.languages(header), "round \(round): \(header.prefix(40))")
            }
        }
        #expect(RequestBridge.languages("en-GB,en;q=0.9") == ["en-GB", "en"])
        #expect(RequestBridge.languages("sv;q=0.5, *;q=0.9, de") == ["de", "sv"])
    }

    @Test("a request's header read in place: equal bytes are answered from the thread's last one, other bytes parsed anew, absence is nil")
    func readInPlace() {
        let parses = Locked(0)
        let cache = ParsedHeaders<[String]> { header in
            parses.withLock { $0 += 1 }
            return RequestBridge.languages(header)
        }
        func request(_ value: String?) -> HTTPHeaders {
            var headers: HTTPHeaders = ["Host": "x"]
            if let value { headers.add(name: "accept-language", value: value) }
            headers.add(name: "Accept-Language", value: "not the first")
            return value == nil ? ["Host": "x"] : headers
        }
        #expect(cache.parsed(field: "Accept-Language", of: request("en-GB,en;q=0.9")) == ["en-GB", "en"])
        #expect(cache.parsed(field: "ACCEPT-LANGUAGE", of: request("en-GB,en;q=0.9")) == ["en-GB", "en"])
        #expect(parses.withLock { $0 } == 1, "the same bytes again: no parse")
        #expect(cache.parsed(field: "Accept-Language", of: request("en-GB,en;q=0.8")) == ["en-GB", "en"])
        #expect(cache.parsed(field: "Accept-Language", of: request("sv, de;q=0.1")) == ["sv", "de"])
        #expect(cache.parsed(field: "Accept-Language", of: request("en-GB,en;q=0.9")) == ["en-GB", "en"], "from the stripe's recent texts")
        #expect(cache.parsed(field: "Accept-Language", of: request("en-GB,en;q=0.")) == ["en-GB"], "a prefix of the last is other bytes")
        #expect(cache.parsed(field: "Accept-Language", of: request("")) == [])
        #expect(cache.parsed(field: "Accept-Language", of: request(nil)) == nil)
        #expect(cache.parsed(field: "Accept-Language", of: request("")) == [], "an empty value is a value")
        // Past the kept length: parsed (from the recent texts' path) each time, the same answer.
        let long = (0..<300).map { "t\($0);q=0.5" }.joined(separator: ",")
        let before = parses.withLock { $0 }
        #expect(cache.parsed(field: "Accept-Language", of: request(long)) == RequestBridge.languages(long))
        #expect(cache.parsed(field: "Accept-Language", of: request(long)) == RequestBridge.languages(long))
        #expect(parses.withLock { $0 } == before + 2)
    }

    @Test("threads share what a header parses to: parsed once in all, and each thread gets the same components set")
    func threadsShareParsedHeaders() async throws {
        let parses = Locked(0)
        let cache = ParsedHeaders<ComponentList> { header in
            parses.withLock { $0 += 1 }
            return ComponentList(header: header)
        }
        let header = "hub:row, hub:card, app:banner"
        // Many threads (and so several stripes): the first parse is every later thread's answer.
        let lists = try await withThrowingTaskGroup(of: ComponentList.self) { group in
            for _ in 0..<16 {
                group.addTask { try await blocking { cache.parsed(header) } }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(parses.withLock { $0 } == 1)
        #expect(lists.count == 16 && lists.allSatisfy { $0.variant == "|app:banner,hub:card,hub:row" })
        // One set (one storage) behind every answer: a session compares it by identity.
        let first = lists[0].identifiers
        #expect(lists.allSatisfy { $0.identifiers == first })
        // More distinct headers than the shared table keeps: it starts over, each still read right.
        for index in 0..<(ParsedHeaders<ComponentList>.sharedCapacity + 8) {
            #expect(cache.parsed("hub:row\(index)").variant == "|hub:row\(index)")
        }
        #expect(parses.withLock { $0 } == 1 + ParsedHeaders<ComponentList>.sharedCapacity + 8)
    }
}
