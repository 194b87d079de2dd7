import HubModel
import Testing
@testable import HubServer

/// `Hub-Components` is read once per distinct header text (`ComponentList.Cache`): a header read
/// from the cache names what reading it anew names, whatever came between.
@Suite struct ComponentListTests {
    @Test("a remembered header's list is the list read anew; items are trimmed, unparseable ones skipped")
    func rememberedListsAreReadLists() {
        let cache = ComponentList.Cache()
        let header = " hub:row , hub:card,not-an-identifier,, app:banner\t"
        let first = cache.list(for: header)
        let again = cache.list(for: header)
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
        let cache = ComponentList.Cache()
        for round in 0..<2 {
            for index in 0..<(3 * ComponentList.Cache.capacity) {
                let list = cache.list(for: "hub:row\(index), hub:card")
                #expect(list.variant == "|hub:card,hub:row\(index)", "round \(round), header \(index)")
            }
        }
        // Past the kept length: read each time, the same answer (and at most 512 items read).
        let many = (0..<600).map { "hub:c\($0)" }.joined(separator: ",")
        #expect(many.utf8.count > ComponentList.Cache.maximumHeaderBytes)
        let long = cache.list(for: many)
        #expect(long.identifiers.count == ComponentList.maximumComponents)
        #expect(cache.list(for: many).variant == long.variant)
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
}
