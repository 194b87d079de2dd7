import CCurl
import HubPrimitives

/// What the curl thread hands back for a finished transfer: the raw upstream answer.
struct CurlResult: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]
}

/// One request's life on the curl thread: the easy handle's options, the header and body
/// buffers filled by curl's callbacks, and the continuation to resume when it finishes.
///
/// `@unchecked Sendable` because it crosses from the requesting task to the curl thread exactly
/// once: `continuation` is stored before the transfer is published to ``CurlEngine`` under its
/// mutex (a happens-before edge), and from then on every mutable field (`easy`, `headerList`,
/// the buffers, `continuation`) is read and written only on the engine's single curl thread,
/// including from the C callbacks, which curl invokes on the thread that drives the multi handle.
final class CurlTransfer: @unchecked Sendable {
    let request: UpstreamRequest
    let maxResponseBytes: Int
    var continuation: CheckedContinuation<CurlResult, any Error>?
    var easy: UnsafeMutableRawPointer?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var status = 0
    private var headers: [(name: String, value: String)] = []
    private var body: [UInt8] = []
    private var exceededLimit = false

    init(request: UpstreamRequest, maxResponseBytes: Int) {
        self.request = request
        self.maxResponseBytes = maxResponseBytes
    }

    /// Sets every option of `easy` for this request. Returns an error for a request curl must
    /// not even try (a header with CR or LF in it).
    func configure(_ easy: UnsafeMutableRawPointer, defaults: UpstreamConfiguration) -> UpstreamError? {
        self.easy = easy
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = request.url.withCString { hub_curl_easy_setopt_string(easy, CURLOPT_URL, $0) }
        _ = hub_curl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https,file")
        _ = hub_curl_easy_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        _ = hub_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = hub_curl_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, "")
        let timeout = (request.timeout ?? defaults.timeout).curlMilliseconds
        let connectTimeout = min((request.connectTimeout ?? defaults.connectTimeout).curlMilliseconds, timeout)
        _ = hub_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, timeout)
        _ = hub_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, connectTimeout)
        _ = hub_curl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, request.followRedirects ? 1 : 0)
        _ = hub_curl_easy_setopt_long(easy, CURLOPT_MAXREDIRS, 5)
        _ = hub_curl_easy_setopt_off_t(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maxResponseBytes))
        _ = hub_curl_easy_setopt_long(easy, CURLOPT_TCP_NODELAY, 1)
        _ = hub_curl_easy_setopt_pointer(easy, CURLOPT_PRIVATE, me)
        _ = hub_curl_easy_setopt_write_function(easy) { buffer, size, count, userdata in
            guard let buffer, let userdata else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
            return transfer.receiveBody(UnsafeRawBufferPointer(start: buffer, count: size * count))
        }
        _ = hub_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, me)
        _ = hub_curl_easy_setopt_header_function(easy) { buffer, size, count, userdata in
            guard let buffer, let userdata else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
            transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: buffer, count: size * count))
            return size * count
        }
        _ = hub_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, me)
        configureMethodAndBody(easy)
        return configureHeaders(easy)
    }

    private func configureMethodAndBody(_ easy: UnsafeMutableRawPointer) {
        let method = request.method.uppercased()
        switch (method, request.body) {
        case ("GET", nil):
            _ = hub_curl_easy_setopt_long(easy, CURLOPT_HTTPGET, 1)
        case ("HEAD", nil):
            _ = hub_curl_easy_setopt_long(easy, CURLOPT_NOBODY, 1)
        default:
            let body = request.body ?? []
            if body.isEmpty && method != "POST" && method != "PUT" && method != "PATCH" {
                break  // DELETE, OPTIONS, ...: no body, no Content-Length
            }
            _ = hub_curl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            // COPYPOSTFIELDS copies POSTFIELDSIZE bytes now, so the buffer may go away after.
            if body.isEmpty {
                _ = hub_curl_easy_setopt_string(easy, CURLOPT_COPYPOSTFIELDS, "")
            } else {
                body.withUnsafeBytes { bytes in
                    _ = hub_curl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                }
            }
        }
        if method != "GET" && method != "HEAD" && method != "POST" {
            _ = hub_curl_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, method)
        }
    }

    private func configureHeaders(_ easy: UnsafeMutableRawPointer) -> UpstreamError? {
        var list: UnsafeMutablePointer<curl_slist>?
        var lines = (request.headers + request.traceHeaders).map { header in
            // curl's convention: "Name;" sends a header with an empty value ("Name:" removes it).
            header.value.isEmpty ? header.name + ";" : header.name + ": " + header.value
        }
        if request.body != nil { lines.append("Expect:") }  // no 100-continue round trip
        for line in lines {
            guard !line.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                curl_slist_free_all(list)
                return .other("header with CR, LF or NUL")
            }
            list = curl_slist_append(list, line)
        }
        headerList = list
        if let list { _ = hub_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, list) }
        return nil
    }

    /// CURLOPT_WRITEFUNCTION: appends body bytes; aborts (returns 0) past the size limit.
    private func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard body.count + bytes.count <= maxResponseBytes else {
            exceededLimit = true
            return 0
        }
        body.append(contentsOf: bytes)
        return bytes.count
    }

    /// CURLOPT_HEADERFUNCTION: one header line (with its CRLF). A status line starts a new
    /// header block (after a redirect or an interim 1xx), so earlier headers are dropped.
    private func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        var line = Substring(String(decoding: bytes, as: UTF8.self))
        while let last = line.last, last == "\r" || last == "\n" || last == "\r\n" { line.removeLast() }
        if line.hasPrefix("HTTP/") {
            headers.removeAll(keepingCapacity: true)
            let parts = line.split(separator: " ", maxSplits: 2)
            status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].trimmingOWS()
        let value = line[line.index(after: colon)...].trimmingOWS()
        headers.append((name: String(name), value: String(value)))
        if body.isEmpty, (200..<300).contains(status),
           name.asciiCaseInsensitiveEquals("content-length"), !request.method.asciiCaseInsensitiveEquals("HEAD"),
           let length = Int(value), length > 0 {
            body.reserveCapacity(min(length, maxResponseBytes))  // one allocation for framed bodies
        }
    }

    /// Builds the result of a finished transfer from curl's result code.
    func result(code: CURLcode) -> Result<CurlResult, UpstreamError> {
        guard code == CURLE_OK else {
            return .failure(Self.error(for: code, exceededLimit: exceededLimit, limit: maxResponseBytes))
        }
        var responseCode = 0
        if let easy { _ = hub_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &responseCode) }
        // file:// has no status; a file that was read is a 200.
        let finalStatus = responseCode != 0 ? responseCode : (status != 0 ? status : 200)
        return .success(CurlResult(status: finalStatus, headers: headers, body: body))
    }

    /// Frees what `configure` allocated; the easy handle itself goes back to the engine.
    func releaseResources() {
        curl_slist_free_all(headerList)
        headerList = nil
        easy = nil
        body = []
    }

    /// True when `url` starts with `http://`, `https://` or `file://` (case-insensitive).
    static func hasAllowedScheme(_ url: String) -> Bool {
        guard let colon = url.utf8.firstIndex(of: UInt8(ascii: ":")) else { return false }
        let scheme = url[..<colon].lowercased()
        return (scheme == "http" || scheme == "https" || scheme == "file") && url[colon...].hasPrefix("://")
    }

    /// Maps a curl result code to the client-facing error.
    static func error(for code: CURLcode, exceededLimit: Bool, limit: Int) -> UpstreamError {
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .connectFailed
        case CURLE_RECV_ERROR, CURLE_PARTIAL_FILE, CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_HTTP2_STREAM:
            return .connectionReset
        case CURLE_FILESIZE_EXCEEDED:
            return .tooLarge(limit: limit)
        case CURLE_WRITE_ERROR where exceededLimit:
            return .tooLarge(limit: limit)
        case CURLE_FILE_COULDNT_READ_FILE:
            return .fileNotFound
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            return .invalidURL
        default:
            return .other(String(cString: curl_easy_strerror(code)))
        }
    }
}
