import CCurl
@testable import HubUpstream
import Testing

/// Pure parts: errors, the LRU, cache directives.
@Suite struct UnitTests {
    @Test func errorDescriptionsAreShortAndSafe() {
        let secret = Array("internal stack trace /etc/passwd".utf8)
        let error = UpstreamError.httpStatus(503, body: secret)
        #expect(error.description == "upstream answered HTTP 503")
        #expect(error.bodySnippet == "internal stack trace /etc/passwd")
        #expect(UpstreamError.other("CURLE_SSL_CONNECT_ERROR").description == "upstream request failed")
        #expect(UpstreamError.timeout.isTimeout)
        #expect(!UpstreamError.connectFailed.isTimeout)
        #expect(UpstreamError.tooLarge(limit: 10).kind == .tooLarge)
        #expect(UpstreamError.invalidJSON(detail: "x").kind.label == "invalid_json")
    }

    @Test func snippetNeverSplitsUTF8() {
        let body = Array(repeating: UInt8(ascii: "a"), count: 511) + Array("é".utf8) + Array(repeating: UInt8(ascii: "b"), count: 100)
        let snippet = UpstreamError.httpStatus(500, body: body).bodySnippet
        #expect(snippet == String(repeating: "a", count: 511))
        #expect(UpstreamError.httpStatus(500).bodySnippet == nil)
    }

    @Test func curlCodesMapToKinds() {
        #expect(CurlTransfer.error(for: CURLE_OPERATION_TIMEDOUT, exceededLimit: false, limit: 1).kind == .timeout)
        #expect(CurlTransfer.error(for: CURLE_COULDNT_CONNECT, exceededLimit: false, limit: 1).kind == .connectFailed)
        #expect(CurlTransfer.error(for: CURLE_RECV_ERROR, exceededLimit: false, limit: 1).kind == .connectionReset)
        #expect(CurlTransfer.error(for: CURLE_PARTIAL_FILE, exceededLimit: false, limit: 1).kind == .connectionReset)
        #expect(CurlTransfer.error(for: CURLE_GOT_NOTHING, exceededLimit: false, limit: 1).kind == .connectionReset)
        #expect(CurlTransfer.error(for: CURLE_SEND_ERROR, exceededLimit: false, limit: 1).kind == .connectionReset)
        #expect(CurlTransfer.error(for: CURLE_FILESIZE_EXCEEDED, exceededLimit: false, limit: 1).kind == .tooLarge)
        #expect(CurlTransfer.error(for: CURLE_WRITE_ERROR, exceededLimit: true, limit: 1).kind == .tooLarge)
        #expect(CurlTransfer.error(for: CURLE_WRITE_ERROR, exceededLimit: false, limit: 1).kind == .other)
        #expect(CurlTransfer.error(for: CURLE_FILE_COULDNT_READ_FILE, exceededLimit: false, limit: 1).kind == .fileNotFound)
        #expect(CurlTransfer.error(for: CURLE_URL_MALFORMAT, exceededLimit: false, limit: 1).kind == .invalidURL)
        #expect(CurlTransfer.error(for: CURLE_UNSUPPORTED_PROTOCOL, exceededLimit: false, limit: 1).kind == .invalidURL)
    }

    @Test func jsonPrecheck() throws {
        try UpstreamResponse.checkLooksLikeJSON(Array("  [1]".utf8))
        try UpstreamResponse.checkLooksLikeJSON([0xEF, 0xBB, 0xBF] + Array("{}".utf8))
        #expect(throws: UpstreamError.self) { try UpstreamResponse.checkLooksLikeJSON(Array("<html>".utf8)) }
        let blank = #expect(throws: UpstreamError.self) { try UpstreamResponse.checkLooksLikeJSON(Array(" \n".utf8)) }
        #expect(blank?.kind == .emptyBody)
    }

    @Test func lruEvictsByEntriesAndBytes() {
        var lru = LRUCache<String, Int>(maxEntries: 2, maxCost: 100)
        lru.setValue(1, forKey: "a", cost: 10)
        lru.setValue(2, forKey: "b", cost: 10)
        _ = lru.value(forKey: "a")  // b is now least recently used
        lru.setValue(3, forKey: "c", cost: 10)
        #expect(lru.value(forKey: "b") == nil)
        #expect(lru.value(forKey: "a") == 1)
        #expect(lru.value(forKey: "c") == 3)
        lru.setValue(4, forKey: "d", cost: 95)  // evicts both others by cost
        #expect(lru.count == 1)
        #expect(lru.totalCost == 95)
        lru.setValue(5, forKey: "huge", cost: 101)  // never stored
        #expect(lru.value(forKey: "huge") == nil)
        lru.setValue(6, forKey: "d", cost: 5)  // replace updates the cost
        #expect(lru.totalCost == 5)
        lru.removeValue(forKey: "d")
        #expect(lru.count == 0 && lru.totalCost == 0)
    }

    @Test func cacheControlDirectives() {
        let control = CacheControl(headers: [("Cache-Control", "public, max-age=\"60\", s-maxage=30"), ("Age", "10"), ("ETag", "\"a\"")])
        #expect(control.freshSeconds == 20)
        #expect(control.isStorable)
        #expect(control.etag == "\"a\"")
        #expect(!CacheControl(headers: [("cache-control", "No-Store")]).isStorable)
        #expect(!CacheControl(headers: [("Vary", "Accept, *")]).isStorable)
        #expect(CacheControl(headers: [("Cache-Control", "no-cache, max-age=60")]).freshSeconds == 0)
        #expect(CacheControl(headers: [("Cache-Control", "max-age=abc")]).freshSeconds == 0)
    }
}
