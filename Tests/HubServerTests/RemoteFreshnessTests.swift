import HubOperations
import HubSync
import Testing

/// The check a memoized chain's key holds while (``RemoteFreshness/validity(for:)``): true while
/// the URL's response is the same fresh one, false once it expires, is replaced, is forgotten or
/// another URL's change is followed by this one's; each answer checked against
/// ``RemoteFreshness/fingerprint(for:)``, which looks the entry up every time.
@Suite("Remote freshness: the memo key's validity check")
struct RemoteFreshnessTests {
    /// A clock the test moves by hand.
    final class SteppedClock: Sendable {
        private let instant = Locked(ContinuousClock.now)
        var now: ContinuousClock.Instant { instant.withLock { $0 } }
        func advance(_ duration: Duration) { instant.withLock { $0 += duration } }
    }

    let clock = SteppedClock()
    let url = "http://upstream.test/rows"
    let body: [UInt8] = Array(#"{"body":[]}"#.utf8)

    func freshness() -> RemoteFreshness {
        let clock = clock
        return RemoteFreshness(now: { clock.now })
    }

    @Test("no check without a fresh response; a check holds until the response expires")
    func expiry() {
        let freshness = freshness()
        #expect(freshness.validity(for: url) == nil)
        freshness.record(url: url, body: body, freshUntil: clock.now + .seconds(10))
        let isValid = try! #require(freshness.validity(for: url))
        #expect(isValid())
        clock.advance(.seconds(9))
        #expect(isValid() && freshness.fingerprint(for: url) != nil)
        clock.advance(.seconds(1))
        #expect(!isValid(), "expired at freshUntil, as fingerprint(for:) says")
        #expect(freshness.fingerprint(for: url) == nil)
        #expect(freshness.validity(for: url) == nil)
    }

    @Test("a new response with other bytes ends the check; the same bytes again keep it")
    func replaced() {
        let freshness = freshness()
        freshness.record(url: url, body: body, freshUntil: clock.now + .seconds(10))
        let isValid = try! #require(freshness.validity(for: url))
        freshness.record(url: url, body: body, freshUntil: clock.now + .seconds(20))
        #expect(isValid(), "the same fingerprint: the memoized chain built the same content")
        freshness.record(url: url, body: Array(#"{"body":[{}]}"#.utf8), freshUntil: clock.now + .seconds(20))
        #expect(!isValid())
    }

    @Test("one reading gives the fingerprint and the check of that very response")
    func reading() {
        let freshness = freshness()
        #expect(freshness.reading(url) == nil)
        freshness.record(url: url, body: body, freshUntil: clock.now + .seconds(10))
        let first = try! #require(freshness.reading(url))
        #expect(first.fingerprint == freshness.fingerprint(for: url) && first.isValid())
        freshness.record(url: url, body: Array(#"{"body":[{}]}"#.utf8), freshUntil: clock.now + .seconds(10))
        let second = try! #require(freshness.reading(url))
        #expect(second.fingerprint != first.fingerprint && second.fingerprint == freshness.fingerprint(for: url))
        #expect(!first.isValid() && second.isValid(), "each check is its own reading's")
    }

    @Test("a change to another URL sends the check to the lookup, which still finds this one")
    func otherURLChanged() {
        let freshness = freshness()
        freshness.record(url: url, body: body, freshUntil: clock.now + .seconds(10))
        let isValid = try! #require(freshness.validity(for: url))
        freshness.record(url: "http://upstream.test/other", body: body, freshUntil: clock.now + .seconds(10))
        #expect(isValid())
        clock.advance(.seconds(10))
        #expect(!isValid(), "the lookup measures freshness too")
    }

    @Test("forgotten (an invalidation) or recorded as no longer fresh: the check fails at once")
    func forgotten() {
        let freshness = freshness()
        freshness.record(url: url, body: body, freshUntil: clock.now + .seconds(10))
        let first = try! #require(freshness.validity(for: url))
        freshness.forget { $0 == url }
        #expect(!first())
        freshness.record(url: url, body: body, freshUntil: clock.now + .seconds(10))
        let second = try! #require(freshness.validity(for: url))
        #expect(first(), "the same bytes are fresh again: the first check's fingerprint matches")
        freshness.record(url: url, body: body, freshUntil: nil)
        #expect(!second() && !first())
    }
}
