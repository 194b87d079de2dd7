// libFuzzer target: the HTTP/1.1 request parser must never crash or trap on any input, and
// feeding the same bytes whole or in small pieces must give the same requests and the same
// verdict (error or not). The first input byte picks the piece size and the limits.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let control = data[0]
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let small = control & 0x80 != 0
    let limits = small
        ? HTTPServerConfiguration.Limits(requestLineBytes: 64, headerBytes: 256, headerCount: 8, bodyBytes: 128)
        : HTTPServerConfiguration.Limits()
    let whole = run(bytes, limits: limits, piece: Int.max)
    let pieces = run(bytes, limits: limits, piece: Int(control & 0x0F) + 1)
    guard (whole.error == nil) == (pieces.error == nil) else { fatalError("verdict differs: \(whole.error as Any) vs \(pieces.error as Any)") }
    let count = min(whole.requests.count, pieces.requests.count)
    guard whole.error != nil || whole.requests.count == pieces.requests.count else { fatalError("request count differs") }
    for index in 0..<count {
        let a = whole.requests[index], b = pieces.requests[index]
        guard a.method == b.method, a.target == b.target, a.path == b.path, a.body == b.body,
              a.headers.fields.map(\.name) == b.headers.fields.map(\.name),
              a.headers.fields.map(\.value) == b.headers.fields.map(\.value),
              a.query.map(\.name) == b.query.map(\.name), a.query.map(\.value) == b.query.map(\.value)
        else { fatalError("request \(index) differs") }
        guard a.body.count <= limits.bodyBytes else { fatalError("body over the limit") }
        // Lookups read the received bytes in place; they must answer what the fields list says.
        let list = HTTPHeaders(a.headers.fields)
        for field in a.headers.fields {
            var firstBytes: String?
            a.headers.withFirstValueBytes(named: field.name) { firstBytes = $0.map { String(decoding: $0, as: UTF8.self) } }
            guard a.headers[field.name] == list[field.name], a.headers.values(for: field.name) == list.values(for: field.name),
                  a.headers.contains(field.name), a.headers.containsToken("close", in: field.name) == list.containsToken("close", in: field.name),
                  firstBytes == list[field.name]
            else { fatalError("lookup of \(field.name) differs from the list") }
        }
        _ = a.keepAlive
    }
    if let error = whole.error {
        _ = error.response
    }
    return 0
}

private func run(_ bytes: [UInt8], limits: HTTPServerConfiguration.Limits, piece: Int) -> (requests: [HTTPRequest], error: HTTPParseError?) {
    var parser = RequestParser(limits: limits)
    var requests: [HTTPRequest] = []
    var offset = 0
    repeat {
        let end = min(bytes.count, offset + min(piece, bytes.count - offset))
        parser.append(Array(bytes[offset..<end]))
        offset = end
        do {
            loop: while true {
                switch try parser.parse() {
                case .needMoreData: break loop
                case .expectContinue: continue
                case .request(let request): requests.append(request)
                case .rejected(_, let error): return (requests, error)
                }
            }
        } catch {
            return (requests, error)
        }
    } while offset < bytes.count
    return (requests, nil)
}
