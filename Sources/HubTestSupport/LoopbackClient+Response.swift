import HubHTTP
import HubPrimitives

extension LoopbackClient {
    /// The status line and header section of the next response.
    public func readHead() throws -> (status: Int, headers: HTTPHeaders) {
        let statusLine = try readLine()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw HarnessError("bad status line '\(statusLine)'")
        }
        var headers = HTTPHeaders()
        while true {
            let line = try readLine()
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":") else { throw HarnessError("bad header line '\(line)'") }
            headers.add(name: String(line[..<colon]), value: String(line[line.index(after: colon)...].trimmingOWS()))
        }
        return (status, headers)
    }

    /// One chunk of a chunked body (extensions ignored); nil for the last (zero) chunk, after its trailers.
    public func readChunk() throws -> [UInt8]? {
        let sizeLine = try readLine()
        let sizeText = sizeLine.split(separator: ";").first.map { String($0.trimmingOWS()) } ?? ""
        guard let size = Int(sizeText, radix: 16) else { throw HarnessError("bad chunk size '\(sizeLine)'") }
        if size == 0 {
            while try !readLine().isEmpty {}  // trailers
            return nil
        }
        let data = try readExactly(size)
        guard try readLine().isEmpty else { throw HarnessError("chunk not followed by CRLF") }
        return data
    }

    /// The next whole response: Content-Length, chunked, or close-delimited content; none for
    /// a response to HEAD (`method`, or `head: true`), 1xx (an interim response is returned as
    /// one of its own), 204 and 304.
    public func readResponse(method: String = "GET", head: Bool = false) throws -> LoopbackResponse {
        let (status, headers) = try readHead()
        var response = LoopbackResponse(status: status, headers: headers, body: [])
        if head || method == "HEAD" || status < 200 || status == 204 || status == 304 { return response }
        if headers["Transfer-Encoding"]?.lowercased().contains("chunked") == true {
            while let chunk = try readChunk() { response.body += chunk }
        } else if let length = headers["Content-Length"].flatMap({ Int($0) }) {
            response.body = try readExactly(length)
        } else {
            response.body = try readToEnd()
        }
        return response
    }
}
