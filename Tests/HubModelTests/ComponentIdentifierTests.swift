import HubModel
import Testing

/// S83: `namespace:name` parsing. Found by schemathesis: an emoji modifier or a
/// combining mark right after the ':' forms one grapheme cluster with it, and the name was
/// cut at Character boundaries, so "a:🏻" parsed with an empty name (422 for a valid action).
@Suite("ComponentIdentifier parsing")
struct ComponentIdentifierTests {
    @Test("the name after ':' is kept whole, whatever combines with the ':'", arguments: [
        ("a:🏻", "a", "🏻"), ("ns:\u{301}x", "ns", "\u{301}x"), ("\u{88}t*😍:🏻", "\u{88}t*😍", "🏻"), ("default:row", "default", "row"),
    ])
    func combining(text: String, namespace: String, name: String) throws {
        let identifier = try #require(ComponentIdentifier(string: text))
        #expect(identifier.namespace == namespace)
        #expect(identifier.name == name)
        #expect(identifier.identifierString == text)
    }

    @Test("not exactly one ':' is nil", arguments: ["", "name", "a:b:c", ":"])
    func invalid(text: String) {
        if text == ":" {
            #expect(ComponentIdentifier(string: text)?.namespace == "", "one colon parses; callers check emptiness")
        } else {
            #expect(ComponentIdentifier(string: text) == nil)
        }
    }
}
