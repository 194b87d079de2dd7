// libFuzzer target: the JSON parser, the default-schema reader and the serializer must never
// crash on any input, and whatever parses must serialize and parse back to an equal value.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    guard let value = try? JSONParser(options: .init(maxDepth: 64)).parse(bytes) else { return 0 }
    let reencoded = value.jsonBytes
    guard let again = try? JSONParser(options: .init(maxDepth: 64)).parse(reencoded), again == value else {
        fatalError("round trip changed the value")
    }
    if var builder = Optional(ViewModelBuilder()), (try? builder.add(json: value)) != nil {
        let model = builder.build()
        _ = try? JSONParser(options: .init(maxDepth: 256)).parse(model.jsonBytes())
    }
    return 0
}
