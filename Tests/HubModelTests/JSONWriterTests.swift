import HubModel
import Testing

/// The compact, byte-stable writer (DESIGN.md "Content model and JSON").
@Suite("JSON writer")
struct JSONWriterTests {
    @Test("scalars are written compactly")
    func scalars() {
        #expect(JSONValue.null.jsonString == "null")
        #expect(JSONValue.bool(true).jsonString == "true")
        #expect(JSONValue.bool(false).jsonString == "false")
        #expect(JSONValue.int(0).jsonString == "0")
        #expect(JSONValue.int(7).jsonString == "7")
        #expect(JSONValue.int(10).jsonString == "10")
        #expect(JSONValue.int(-5).jsonString == "-5")
        #expect(JSONValue.int(Int.max).jsonString == "9223372036854775807")
        #expect(JSONValue.int(Int.min).jsonString == "-9223372036854775808")
        #expect(JSONValue.double(1.5).jsonString == "1.5")
        #expect(JSONValue.double(-0.25).jsonString == "-0.25")
    }

    @Test("non-finite doubles, which the parser never produces, are written as null")
    func nonFinite() {
        #expect(JSONValue.double(.infinity).jsonString == "null")
        #expect(JSONValue.double(.nan).jsonString == "null")
    }

    @Test("strings escape only quote, backslash and control characters; non-ASCII stays UTF-8")
    func escaping() {
        #expect(JSONValue.string("a\"b\\c").jsonString == #""a\"b\\c""#)
        #expect(JSONValue.string("\n\r\t\u{8}\u{C}").jsonString == #""\n\r\t\b\f""#)
        #expect(JSONValue.string("\u{0}\u{1F}").jsonString == #""\u0000\u001f""#)
        #expect(JSONValue.string("a/b").jsonString == #""a/b""#)
        #expect(JSONValue.string("é😀").jsonBytes == Array("\"é😀\"".utf8))
        #expect(JSONValue.string("").jsonString == #""""#)
    }

    @Test("containers are compact and objects keep their key order")
    func containers() {
        let object: JSONValue = ["z": 1, "a": [true, nil, "x"], "m": [:]]
        #expect(object.jsonString == #"{"z":1,"a":[true,null,"x"],"m":{}}"#)
        #expect(JSONValue.array([]).jsonString == "[]")
    }

    @Test("write then parse gives an equal value; parse then write gives the same bytes")
    func roundTrip() throws {
        let text = #"{"s":"q\"\\\n\u0001é","i":-42,"d":0.1,"e":1e-7,"big":1e300,"b":[true,false,null],"o":{"k":{}}}"#
        let value = try parseJSON(text)
        let written = value.jsonBytes
        #expect(try JSONParser().parse(written) == value)
        #expect(try JSONParser().parse(written).jsonBytes == written, "byte-stable after one normalization")
        // Integers beyond 2^53 survive exactly (they are never turned into doubles).
        let big = try parseJSON("[9007199254740993]")
        #expect(big.jsonString == "[9007199254740993]")
    }

    @Test("the same value always gives the same bytes")
    func stable() throws {
        let value = try parseJSON(#"{"b":1,"a":{"y":2,"x":[3,4]}}"#)
        #expect(value.jsonBytes == value.jsonBytes)
        #expect(value.jsonString == #"{"b":1,"a":{"y":2,"x":[3,4]}}"#)
    }

    @Test("JSONObject: set replaces in place, nil removes, merge is shallow (S28)")
    func objectEditing() {
        var object: JSONObject = ["a": 1, "b": ["x": 1, "y": 2]]
        object["a"] = 2
        object["c"] = 3
        #expect(object.orderedKeys == ["a", "b", "c"])
        object["a"] = nil
        #expect(object.orderedKeys == ["b", "c"])
        object.merge(["b": ["z": 9], "d": 4])
        #expect(JSONValue.object(object).jsonString == #"{"b":{"z":9},"c":3,"d":4}"#)
    }

    @Test("JSONObject past the hash-index threshold: removals, replacements and appends keep lookups right")
    func largeObjectEditing() {
        var object = JSONObject()
        for index in 0..<40 { object["k\(index)"] = .int(index) }
        object["k5"] = nil
        object["k30"] = "replaced"
        object["new"] = true
        #expect(object.count == 40)
        #expect(object["k5"] == nil)
        #expect(object["k6"] == 6)
        #expect(object["k39"] == 39)
        #expect(object["k30"] == "replaced")
        #expect(object["new"] == true)
        #expect(object.position(of: "k6") == 5)
        #expect(object.orderedKeys.last == "new")
        for index in 0..<30 { object["k\(index)"] = nil }
        #expect(object.orderedKeys == (30..<40).map { "k\($0)" } + ["new"])
        #expect(object["k31"] == 31)
    }
}
