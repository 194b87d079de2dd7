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
        let now = 1_800_000_000
        let control = CacheControl(headers: [("Cache-Control", "public, max-age=\"60\", s-maxage=30"), ("Age", "10"), ("ETag", "\"a\"")])
        #expect(control.freshSeconds(receivedAt: now) == 20)
        #expect(control.freshSeconds(receivedAt: now, responseDelay: 3) == 17)
        #expect(control.isStorable)
        #expect(control.etag == "\"a\"")
        #expect(!CacheControl(headers: [("cache-control", "No-Store")]).isStorable)
        #expect(!CacheControl(headers: [("Vary", "Accept, *")]).isStorable)
        #expect(CacheControl(headers: [("Cache-Control", "no-cache, max-age=60")]).freshSeconds(receivedAt: now) == 0)
        #expect(CacheControl(headers: [("Cache-Control", "max-age=abc")]).freshSeconds(receivedAt: now) == 0)
        #expect(CacheControl(headers: [("Cache-Control", "max-age=-5")]).freshSeconds(receivedAt: now) == 0)
        #expect(CacheControl(headers: [("Cache-Control", "max-age=99999999999999999999")]).freshSeconds(receivedAt: now)
            == CacheControl.maxDeltaSeconds)
        // An Age too large for Int saturates (stale), rather than reading as 0 (fresh).
        #expect(CacheControl(headers: [("Cache-Control", "max-age=60"), ("Age", "99999999999999999999")]).freshSeconds(receivedAt: now) == 0)
        #expect(CacheControl(headers: [("Cache-Control", "max-age=60"), ("Age", "junk")]).freshSeconds(receivedAt: now) == 60)
    }

    @Test func expiresAndDateFreshness() {
        // 2027-01-15T08:00:00Z
        let now = HTTPDate.timestamp(year: 2027, month: 1, day: 15, hour: 8, minute: 0, second: 0)
        func fresh(_ headers: [(String, String)], delay: Int = 0) -> Int {
            CacheControl(headers: headers.map { (name: $0.0, value: $0.1) }).freshSeconds(receivedAt: now, responseDelay: delay)
        }
        let date = "Fri, 15 Jan 2027 08:00:00 GMT"
        // Expires - Date; Date defaults to the receipt time.
        #expect(fresh([("Date", date), ("Expires", "Fri, 15 Jan 2027 08:10:00 GMT")]) == 600)
        #expect(fresh([("Expires", "Fri, 15 Jan 2027 08:10:00 GMT")]) == 600)
        #expect(fresh([("Date", "junk"), ("Expires", "Fri, 15 Jan 2027 08:10:00 GMT")]) == 600)
        // The lifetime is Expires - Date even when the origin clock is behind ours; the
        // apparent age (now - Date) then uses it up.
        #expect(fresh([("Date", "Fri, 15 Jan 2027 07:00:00 GMT"), ("Expires", "Fri, 15 Jan 2027 07:10:00 GMT")]) == 0)
        #expect(fresh([("Date", "Fri, 15 Jan 2027 07:59:00 GMT"), ("Expires", "Fri, 15 Jan 2027 08:09:00 GMT")]) == 540)
        // A Date in the future (origin clock ahead) is no negative age.
        #expect(fresh([("Date", "Fri, 15 Jan 2027 08:05:00 GMT"), ("Expires", "Fri, 15 Jan 2027 08:15:00 GMT")]) == 600)
        // Invalid or past Expires: already expired.
        for expires in ["0", "-1", "", "Fri, 15 Jan 2027 07:59:59 GMT", "Fri, 15 Jan 2027 08:00:00 GMT"] {
            #expect(fresh([("Date", date), ("Expires", expires)]) == 0, "Expires: \(expires)")
        }
        // Two Expires fields are not one valid date.
        #expect(fresh([("Expires", "Fri, 15 Jan 2027 08:10:00 GMT"), ("Expires", "Fri, 15 Jan 2027 08:10:00 GMT")]) == 0)
        // max-age and s-maxage win over Expires, even over a later one.
        #expect(fresh([("Cache-Control", "max-age=60"), ("Expires", "0")]) == 60)
        #expect(fresh([("Cache-Control", "s-maxage=5"), ("Expires", "Fri, 15 Jan 2027 09:00:00 GMT")]) == 5)
        #expect(fresh([("Cache-Control", "no-cache"), ("Expires", "Fri, 15 Jan 2027 09:00:00 GMT")]) == 0)
        // Age (plus the response delay) and the apparent age: the larger counts.
        #expect(fresh([("Expires", "Fri, 15 Jan 2027 08:10:00 GMT"), ("Age", "100")]) == 500)
        #expect(fresh([("Expires", "Fri, 15 Jan 2027 08:10:00 GMT"), ("Age", "100")], delay: 2) == 498)
        #expect(fresh([("Date", "Fri, 15 Jan 2027 07:59:00 GMT"), ("Cache-Control", "max-age=100"), ("Age", "10")]) == 40)
        #expect(fresh([("Date", "Fri, 15 Jan 2027 07:59:50 GMT"), ("Cache-Control", "max-age=100"), ("Age", "30")]) == 70)
    }

    @Test func lruReportsWhatItRemoves() {
        var lru = LRUCache<String, Int>(maxEntries: 2, maxCost: 100)
        #expect(lru.setValue(1, forKey: "a", cost: 10).isEmpty)
        #expect(lru.setValue(2, forKey: "b", cost: 10).isEmpty)
        #expect(lru.setValue(3, forKey: "b", cost: 20).isEmpty)  // a replaced value is not reported
        let evicted = lru.setValue(4, forKey: "c", cost: 10)
        #expect(evicted.map(\.key) == ["a"] && evicted.map(\.value) == [1])
        let refused = lru.setValue(5, forKey: "c", cost: 101)
        #expect(refused.map(\.key) == ["c"] && refused.map(\.value) == [4])
        #expect(!lru.contains("c") && lru.contains("b"))
        #expect(lru.removeValue(forKey: "b") == 3)
        #expect(lru.removeValue(forKey: "b") == nil)
    }

    @Test func targetURINormalizationAndResolution() throws {
        let base = try #require(TargetURI("HTTP://Example.COM:80/a/b/c?q=1#top"))
        #expect(base.text == "http://example.com/a/b/c?q=1")
        #expect(TargetURI("https://user:pw@example.com:443")?.text == "https://example.com/")
        #expect(TargetURI("http://example.com:8080/x/./y/../z")?.text == "http://example.com:8080/x/z")
        #expect(TargetURI("file:///tmp/a.json")?.text == "file:///tmp/a.json")
        #expect(TargetURI("/relative") == nil)
        // RFC 3986 5.4.1 normal examples (base http://a/b/c/d;p?q), fragments dropped.
        let rfc = try #require(TargetURI("http://a/b/c/d;p?q"))
        let examples: [(String, String)] = [
            ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"), ("//g", "http://g/"), ("?y", "http://a/b/c/d;p?y"),
            ("g?y", "http://a/b/c/g?y"), ("#s", "http://a/b/c/d;p?q"), ("", "http://a/b/c/d;p?q"),
            (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"), ("../g", "http://a/b/g"),
            ("../..", "http://a/"), ("../../g", "http://a/g"), ("../../../g", "http://a/g"),
            ("/./g", "http://a/g"), ("g.", "http://a/b/c/g."), ("..g", "http://a/b/c/..g"),
            ("g;x=1/../y", "http://a/b/c/y"), ("HTTPS://A:443/x", "https://a/x"),
        ]
        for (reference, expected) in examples {
            #expect(rfc.resolving(reference)?.text == expected, "\(reference)")
        }
        #expect(rfc.resolving("g")!.isSameOrigin(as: rfc))
        #expect(rfc.resolving("http://A:80/elsewhere")!.isSameOrigin(as: rfc))
        #expect(!rfc.resolving("//b/g")!.isSameOrigin(as: rfc))
        #expect(!rfc.resolving("https://a/g")!.isSameOrigin(as: rfc))
        #expect(!rfc.resolving("http://a:8080/g")!.isSameOrigin(as: rfc))
        #expect(rfc.resolving("bad path") == nil)
    }

    @Test func unsafeMethods() {
        for method in ["POST", "PUT", "PATCH", "DELETE", "post", "PROPFIND"] {
            #expect(UpstreamRequest(url: "http://a/", method: method).isUnsafe, "\(method)")
        }
        for method in ["GET", "HEAD", "OPTIONS", "TRACE", "get"] {
            #expect(!UpstreamRequest(url: "http://a/", method: method).isUnsafe, "\(method)")
        }
    }
}
