@testable import HubEngine
import HubSync
import Testing

/// ``FeatureRegistry/feature(for:)`` answers through ``FeatureLookup`` (exact URIs in a
/// dictionary, the other predicates asked in order) and patterns refuse URIs without their
/// literal prefix; both must give exactly what asking every predicate in order gives (S133).
@Suite("Feature lookup")
struct FeatureLookupTests {
    static func feature(_ identifier: String, _ predicate: ViewURIPredicate) -> Feature {
        Feature(identifier: identifier, title: "T", predicate: predicate, operations: [ContentOperationMock()])
    }

    /// What S133 says: the first feature, in order, whose predicate matches.
    static func firstInOrder(_ registry: FeatureRegistry, _ uri: String) -> String? {
        registry.features.first { $0.predicate.matches(uri) }?.identifier
    }

    static let uris: [String] = {
        var uris = [
            "hub:a", "hub:a?x=1", "hub:a#top", "hub:a:sub", "hub:ab", "hub:b", "hub:c", "hub:home", "hub:home:feed",
            "hub:home:legacy", "hub:home:legacy?x", "hub:homework", "hub:album:42", "hub:album:0", "hub:album:42?play=1",
            "hub:album:", "hub:chart:top:se", "hub:chart:top:xx", "hub:chart:old:se", "hub:search", "hub:search?q=abc",
            "hub:search?q=ABC", "hub:odd:1", "hub:odd:9", "hub:odd:2", "hub:late", "hub:late:x", "hub:other", "",
            "hub:a\u{301}", "hub:albu\u{301}m:42", "hub:\u{1F600}", "xhub:a", "hub:Album:42", "hub:settings:audio",
            "hub:settings:storage", "hub:x|y", "hub:z",
        ]
        for uri in uris { uris.append(uri + "?q=1") }
        return uris
    }()

    static func mixedRegistry(reversed: Bool) throws -> FeatureRegistry {
        var features = [
            feature("exact-a", .uris(["hub:a", "hub:b"], excluding: ["hub:b"])),
            feature("home", .root("hub:home", excluding: ["hub:home:legacy"])),
            feature("album", try .pattern("^hub:album:[0-9]+", excluding: ["hub:album:0"])),
            feature("chart", try .pattern("hub:chart:(top|new):[a-z]{2}", excluding: ["hub:chart:top:xx"])),
            feature("search", try .pattern(#"hub:search(\?q=[a-z]+)?"#)),
            feature("alternation", try .pattern("hub:c|hub:x\\|y")),
            feature("odd", .custom(excluding: ["hub:odd:9"]) { $0.hasPrefix("hub:odd:") }),
            feature("exact-b", .uris(["hub:b", "hub:home:legacy", "hub:late", "hub:a"])),
            feature("settings", try .pattern("^hub:settings:(audio|storage)$")),
            feature("root-all", .root("hub:")),
            feature("exact-c", .uris(["hub:z", "hub:other"])),
        ]
        if reversed { features.reverse() }
        return try FeatureRegistry(features: features)
    }

    @Test("The lookup gives the first match in order for every URI, in either order of the features")
    func sameAsAskingInOrder() throws {
        for reversed in [false, true] {
            let registry = try Self.mixedRegistry(reversed: reversed)
            // Twice: the second answer is the remembered one.
            for _ in 0..<2 {
                for uri in Self.uris {
                    #expect(registry.feature(for: uri)?.identifier == Self.firstInOrder(registry, uri), "\(uri), reversed \(reversed)")
                }
            }
        }
    }

    @Test("Answers are remembered only without custom predicates, which are asked every time; past the capacity all is right still")
    func rememberedAnswers() throws {
        let open = Locked(true)
        let registry = try FeatureRegistry(features: [
            Self.feature("switch", .custom { _ in open.withLock { $0 } }),
            Self.feature("rest", .root("hub:")),
        ])
        #expect(registry.feature(for: "hub:a")?.identifier == "switch")
        open.withLock { $0 = false }
        #expect(registry.feature(for: "hub:a")?.identifier == "rest", "a custom predicate is asked again")

        let plain = try FeatureRegistry(features: [
            Self.feature("even", try .pattern("hub:n:[0-9]*[02468]")), Self.feature("exact", .uris(["hub:n:1"])),
        ])
        for round in 0..<2 {
            for number in 0..<(RecentURIs.capacity * 2 + 3) {
                let expected = number % 2 == 0 ? "even" : (number == 1 ? "exact" : nil)
                #expect(plain.feature(for: "hub:n:\(number)")?.identifier == expected, "\(number), round \(round)")
            }
        }
        let long = "hub:n:" + String(repeating: "8", count: RecentURIs.longestURI)
        #expect(plain.feature(for: long)?.identifier == "even")
        #expect(plain.feature(for: long)?.identifier == "even")
    }

    @Test("Threads looking up at once (each stripe's remembered answers and regular expressions) all get the answers in order")
    func concurrentLookups() async throws {
        let registry = try Self.mixedRegistry(reversed: false)
        let expected = Self.uris.map { Self.firstInOrder(registry, $0) }
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for round in 0..<50 {
                        for offset in Self.uris.indices {
                            let index = (offset + worker * 7 + round) % Self.uris.count
                            if registry.feature(for: Self.uris[index])?.identifier != expected[index] { wrong += 1 }
                        }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }

    @Test("An exact URI loses to an earlier root, wins over a later one, and an exclusion passes it on")
    func exactAgainstOrder() throws {
        let registry = try Self.mixedRegistry(reversed: false)
        #expect(registry.feature(for: "hub:a")?.identifier == "exact-a")
        // Excluded by the first exact feature: the next one naming it has it.
        #expect(registry.feature(for: "hub:b")?.identifier == "exact-b")
        // Excluded by the root ahead of it, named by a later exact feature.
        #expect(registry.feature(for: "hub:home:legacy")?.identifier == "exact-b")
        // The catch-all root comes before exact-c, so exact-c never answers.
        #expect(registry.feature(for: "hub:z")?.identifier == "root-all")
        #expect(registry.feature(for: "xhub:a") == nil)
        let reversed = try Self.mixedRegistry(reversed: true)
        #expect(reversed.feature(for: "hub:z")?.identifier == "exact-c")
        #expect(reversed.feature(for: "hub:a")?.identifier == "root-all")
    }

    @Test("A pattern's literal prefix stops at the first special character and backs off a quantifier")
    func literalPrefixes() {
        func prefix(_ source: String) -> String { String(decoding: CompiledPattern.literalPrefix(of: source), as: UTF8.self) }
        #expect(prefix("^hub:album:[0-9]+") == "hub:album:")
        #expect(prefix("hub:chart:(top|new)") == "hub:chart:")
        #expect(prefix("hub:searchx?") == "hub:search")
        #expect(prefix("hub:a*") == "hub:")
        #expect(prefix("hub:ab{2}") == "hub:a")
        #expect(prefix("hub.album") == "hub")
        #expect(prefix(#"hub\:a"#) == "hub")
        // An alternation outside every group: no prefix holds for every alternative.
        #expect(prefix("hub:a|other") == "")
        #expect(prefix(#"hub:a\|b"#) == "hub:a")
        #expect(prefix("hub:[|]") == "hub:")
        // Options at the start, extended syntax anywhere: nothing assumed.
        #expect(prefix("(?i)hub:a") == "")
        #expect(prefix("hub:(?x) a # ( \n | b") == "")
    }

    @Test("A pattern with its prefix check answers as the regular expression alone, for every URI")
    func prefixCheckChangesNoAnswer() throws {
        let sources = [
            "^hub:album:[0-9]+", "hub:chart:(top|new):[a-z]{2}", #"hub:search(\?q=[a-z]+)?"#, "hub:c|hub:x\\|y",
            "^hub:settings:(audio|storage)$", "hub:a*", "hub:ab?", "(?i)hub:a", "hub:a.*", "hub:a\u{301}", "hub:",
        ]
        for source in sources {
            let pattern = try CompiledPattern(source)
            let regex = try Regex(source)
            for uri in Self.uris {
                #expect(pattern.matchesWhole(uri) == ((try? regex.wholeMatch(in: uri)) != nil), "\(source) on \(uri)")
            }
        }
    }

    @Test("A pattern refuses without running on a URI lacking its prefix, and matches as before otherwise")
    func patternWithPrefix() throws {
        let album = try ViewURIPredicate.pattern("^hub:album:[0-9]+$")
        #expect(album.matches("hub:album:42"))
        #expect(!album.matches("hub:albums:42"))
        #expect(!album.matches("hub:albu\u{301}m:42"))
        let caseless = try ViewURIPredicate.pattern("(?i)hub:album:[0-9]+")
        #expect(caseless.matches("HUB:ALBUM:42"))
    }
}
