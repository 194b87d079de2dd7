@testable import HubHTTP

/// Parses `text` (fed `chunk` bytes at a time) into every complete request, or the first error.
func parseAll(
    _ text: String, limits: HTTPServerConfiguration.Limits = .init(), chunk: Int = .max
) -> (requests: [HTTPRequest], error: HTTPParseError?, continues: Int) {
    parseAll(Array(text.utf8), limits: limits, chunk: chunk)
}

func parseAll(
    _ bytes: [UInt8], limits: HTTPServerConfiguration.Limits = .init(), chunk: Int = .max
) -> (requests: [HTTPRequest], error: HTTPParseError?, continues: Int) {
    var parser = RequestParser(limits: limits)
    var requests: [HTTPRequest] = []
    var continues = 0
    var offset = 0
    repeat {
        let end = min(bytes.count, offset + min(chunk, bytes.count))
        parser.append(Array(bytes[offset..<end]))
        offset = end
        do {
            loop: while true {
                switch try parser.parse() {
                case .needMoreData: break loop
                case .expectContinue: continues += 1
                case .request(let request): requests.append(request)
                case .rejected(_, let error): return (requests, error, continues)
                }
            }
        } catch {
            return (requests, error, continues)
        }
    } while offset < bytes.count
    return (requests, nil, continues)
}

/// The error code for a single fixture, or nil if it parsed.
func errorOf(_ text: String, limits: HTTPServerConfiguration.Limits = .init()) -> HTTPParseError? {
    parseAll(text, limits: limits).error
}
