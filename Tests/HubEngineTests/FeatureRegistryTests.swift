import HubEngine
import HubModel
import Testing

/// Section 4: the feature registry (S131..S135) and view URI predicates (S136..S139) with
/// DESIGN.md's segment-aware roots, whole-match patterns and query-blind exact URIs.
@Suite("Features and view URI predicates")
struct FeatureRegistryTests {
    static func feature(_ identifier: String, title: String = "T", _ predicate: ViewURIPredicate) -> Feature {
        Feature(identifier: identifier, title: title, predicate: predicate, operations: [ContentOperationMock()])
    }

    // MARK: - Predicates

    @Test("S136 exact URIs: equal matches, a subview does not; query and fragment are ignored")
    func exactURIs() {
        let predicate = ViewURIPredicate.uris(["hub:a", "hub:b"])
        #expect(predicate.matches("hub:a"))
        #expect(predicate.matches("hub:b"))
        #expect(!predicate.matches("hub:a:subview"))
        #expect(!predicate.matches("hub:c"))
        #expect(predicate.matches("hub:a?tab=2"))
        #expect(predicate.matches("hub:a#top"))
        #expect(predicate.matches("hub:a?tab=2#top"))
        #expect(!predicate.matches("hub:ab"))
    }

    // DESIGN: a divergence from S137's raw prefix.
    @Test("S137 roots are segment-aware")
    func segmentAwareRoot() {
        let predicate = ViewURIPredicate.root("hub:home")
        #expect(predicate.matches("hub:home"))
        #expect(predicate.matches("hub:home:x"))
        #expect(predicate.matches("hub:home?x"))
        #expect(predicate.matches("hub:home/x"))
        #expect(predicate.matches("hub:home#x"))
        #expect(predicate.matches("hub:home:x:y?z=1"))
        #expect(!predicate.matches("hub:homework"))
        #expect(!predicate.matches("hub:hom"))
        #expect(!predicate.matches("hub:other:home"))
    }

    @Test("S138 a root with exclusions: excluded URIs never match (query ignored), the rest does")
    func rootWithExclusions() {
        let predicate = ViewURIPredicate.root("hub:home", excluding: ["hub:home:settings"])
        #expect(predicate.matches("hub:home"))
        #expect(predicate.matches("hub:home:feed"))
        #expect(!predicate.matches("hub:home:settings"))
        #expect(!predicate.matches("hub:home:settings?tab=1"))
        #expect(predicate.matches("hub:home:settings:advanced"))
    }

    @Test("Patterns match the whole URI, query included")
    func patterns() throws {
        let search = try ViewURIPredicate.pattern(#"hub:search(\?q=[a-z]+)?"#)
        #expect(search.matches("hub:search"))
        #expect(search.matches("hub:search?q=abc"))
        #expect(!search.matches("hub:search?q=ABC"))
        #expect(!search.matches("hub:search:more"))
        #expect(!search.matches("xhub:search"))
        let partial = try ViewURIPredicate.pattern("search")
        #expect(!partial.matches("hub:search"))
        let queryBlind = try ViewURIPredicate.pattern("hub:album:[0-9]+")
        #expect(queryBlind.matches("hub:album:42"))
        #expect(!queryBlind.matches("hub:album:42?play=1"))
        let excluding = try ViewURIPredicate.pattern("hub:album:[0-9]+", excluding: ["hub:album:0"])
        #expect(!excluding.matches("hub:album:0"))
        #expect(excluding.matches("hub:album:1"))
        #expect(throws: (any Error).self) { try ViewURIPredicate.pattern("(unclosed") }
    }

    @Test("S139 custom predicates are evaluated as written; exclusions still apply")
    func customPredicate() {
        let predicate = ViewURIPredicate.custom(excluding: ["hub:odd:9"]) { $0.hasPrefix("hub:odd:") && $0.hasSuffix("1") || $0.hasSuffix("9") }
        #expect(predicate.matches("hub:odd:1"))
        #expect(!predicate.matches("hub:odd:2"))
        #expect(!predicate.matches("hub:odd:9"))
        let equality = ViewURIPredicate.custom { $0 == "hub:x" }
        #expect(equality.matches("hub:x"))
        #expect(!equality.matches("hub:x:y"))
    }

    // MARK: - Registry

    @Test("S131 a registration keeps what it was given")
    func registrationProperties() throws {
        let handler = VetoListActionHandler(vetoed: ["a:b"])
        let feature = Feature(
            identifier: "home", title: "Home", predicate: .root("hub:home"), operations: [ContentOperationMock()],
            reloadPolicy: .never, schemaIdentifier: "custom", actionHandler: handler)
        let registry = try FeatureRegistry(features: [feature])
        let found = try #require(registry.feature(identifier: "home"))
        #expect(found.identifier == "home")
        #expect(found.title == "Home")
        #expect(found.reloadPolicy == .never)
        #expect(found.schemaIdentifier == "custom")
        #expect(found.operationFactories.count == 1)
        #expect((found.actionHandler as? VetoListActionHandler)?.vetoed == ["a:b"])
        #expect(found.info == FeatureInfo(identifier: "home", title: "Home"))
        #expect(registry.feature(identifier: "other") == nil)
    }

    @Test("S132 duplicate identifiers, empty identifiers or titles and empty factory lists are rejected")
    func validation() {
        #expect(throws: FeatureRegistry.ValidationError.self) {
            try FeatureRegistry(features: [Self.feature("a", .root("hub:a")), Self.feature("a", .root("hub:b"))])
        }
        #expect(throws: FeatureRegistry.ValidationError.self) {
            try FeatureRegistry(features: [Self.feature("", .root("hub:a"))])
        }
        #expect(throws: FeatureRegistry.ValidationError.self) {
            try FeatureRegistry(features: [Self.feature("a", title: "", .root("hub:a"))])
        }
        #expect(throws: FeatureRegistry.ValidationError.self) {
            try FeatureRegistry(features: [
                Feature(identifier: "a", title: "A", predicate: .root("hub:a"), operationFactories: [])
            ])
        }
        do {
            _ = try FeatureRegistry(features: [Self.feature("a", .root("hub:a")), Self.feature("a", .root("hub:b"))])
        } catch {
            #expect(error.featureIdentifier == "a")
        }
        // S132/S85: factories that return no operations are accepted at registration.
        #expect(throws: Never.self) {
            try FeatureRegistry(features: [
                Feature(identifier: "a", title: "A", predicate: .root("hub:a"), operationFactories: [ClosureContentOperationFactory { _ in [] }])
            ])
        }
    }

    @Test("S133 the first matching feature in registration order wins")
    func firstMatchWins() throws {
        let registry = try FeatureRegistry(features: [
            Self.feature("specific", .uris(["hub:home:special"])),
            Self.feature("home", .root("hub:home")),
            Self.feature("shadowed", .root("hub:home:special")),
        ])
        #expect(registry.feature(for: "hub:home:special")?.identifier == "specific")
        #expect(registry.feature(for: "hub:home:other")?.identifier == "home")
        let reversed = try FeatureRegistry(features: [
            Self.feature("home", .root("hub:home")),
            Self.feature("specific", .uris(["hub:home:special"])),
        ])
        #expect(reversed.feature(for: "hub:home:special")?.identifier == "home")
    }

    @Test("S134 no match: no feature")
    func noMatch() throws {
        let registry = try FeatureRegistry(features: [Self.feature("home", .root("hub:home"))])
        #expect(registry.feature(for: "hub:homework") == nil)
        #expect(registry.feature(for: "") == nil)
    }

    @Test("S144 handler choice: the feature's own, else the default")
    func handlerChoice() throws {
        let own = VetoListActionHandler(vetoed: ["own:x"])
        let fallback = VetoListActionHandler(vetoed: ["default:x"])
        let registry = try FeatureRegistry(
            features: [
                Feature(identifier: "a", title: "A", predicate: .root("hub:a"), operations: [ContentOperationMock()], actionHandler: own),
                Self.feature("b", .root("hub:b")),
            ],
            defaultActionHandler: fallback)
        let a = try #require(registry.feature(identifier: "a"))
        let b = try #require(registry.feature(identifier: "b"))
        #expect((registry.actionHandler(for: a) as? VetoListActionHandler)?.vetoed == ["own:x"])
        #expect((registry.actionHandler(for: b) as? VetoListActionHandler)?.vetoed == ["default:x"])
    }

    @Test("View URI helpers: query, fragment and segments")
    func viewURIHelpers() {
        #expect(ViewURI.stripQueryAndFragment("hub:a:b?x=1#top") == "hub:a:b")
        #expect(ViewURI.segment(1, of: "hub:a:b?x=1") == "a")
        #expect(ViewURI.segment(3, of: "hub:a:b") == nil)
        let request = ViewRequest(viewURI: "hub:a?q=hello%20world&n=1&plus=a+b#frag")
        #expect(request.viewURIWithoutQuery == "hub:a")
        #expect(request.queryValue("q") == "hello world")
        #expect(request.queryValue("plus") == "a+b")
        #expect(request.queryValue("missing") == nil)
    }
}
