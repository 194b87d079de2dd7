import HubIdentity
import Testing

@Suite struct ClaimValueTests {
    @Test func matchesComparesStringsExactlyAndNumbersAndBooleansByTheirJSONText() {
        #expect(ClaimValue.string("admin").matches(anyOf: ["user", "admin"]))
        #expect(!ClaimValue.string("Admin").matches(anyOf: ["admin"]))
        #expect(ClaimValue.number(42).matches(anyOf: ["42"]))
        #expect(!ClaimValue.number(42).matches(anyOf: ["42.0"]))
        #expect(ClaimValue.number(1.5).matches(anyOf: ["1.5"]))
        #expect(ClaimValue.bool(true).matches(anyOf: ["true"]))
        #expect(!ClaimValue.bool(false).matches(anyOf: ["true"]))
        #expect(ClaimValue.array([.string("a"), .number(7)]).matches(anyOf: ["7"]))
        #expect(!ClaimValue.array([.string("a"), .array([.string("b")])]).matches(anyOf: ["c"]))
        #expect(!ClaimValue.array([]).matches(anyOf: [""]))
        #expect(!ClaimValue.object.matches(anyOf: ["", "{}"]))
        #expect(!ClaimValue.null.matches(anyOf: ["", "null"]))
    }

    @Test func textIsForScalarsOnly() {
        #expect(ClaimValue.string("a b").text == "a b")
        #expect(ClaimValue.number(-3).text == "-3")
        #expect(ClaimValue.number(0.25).text == "0.25")
        #expect(ClaimValue.number(1e300).text == "1e+300")
        #expect(ClaimValue.bool(false).text == "false")
        #expect(ClaimValue.array([.string("a")]).text == nil)
        #expect(ClaimValue.object.text == nil)
        #expect(ClaimValue.null.text == nil)
    }
}
