import HubEngine
import Testing

@testable import HubServer

/// ``RenderedView/serverTiming(_:make:)`` formats each timing list once per view and answers
/// every later response with the header of an equal list: equal lists are compared in place
/// (``RenderedView/same(_:_:)``), as `==` would compare them.
@Suite("Server-Timing header per view")
struct ServerTimingHeaderTests {
    static func timing(
        _ name: String, _ milliseconds: Int = 0, failed: Bool = false, memoized: Bool = false, stale: Int? = nil
    ) -> OperationTiming {
        OperationTiming(name: name, duration: .milliseconds(milliseconds), failed: failed, memoized: memoized, staleAgeSeconds: stale)
    }

    /// Lists that differ from the first in one thing each, and one equal to it (a separate array).
    static let lists: [[OperationTiming]] = [
        [timing("static"), timing("remote", 12)],
        [timing("static"), timing("remote", 12)].map { $0 },
        [timing("static")],
        [timing("static"), timing("remote", 13)],
        [timing("static"), timing("remote", 12, failed: true)],
        [timing("static"), timing("remote", 12, memoized: true)],
        [timing("static"), timing("remote", 12, stale: 30)],
        [timing("static"), timing("remotE", 12)],
        [timing("remote", 12), timing("static")],
        [],
    ]

    @Test("in-place comparison agrees with == for every pair, and equal contents in two arrays are equal")
    func sameAgreesWithEquality() {
        for left in Self.lists {
            for right in Self.lists {
                #expect(RenderedView.same(left, right) == (left == right), "\(left) against \(right)")
            }
        }
        var copy = Self.lists[0]
        copy.append(Self.timing("extra"))
        copy.removeLast()
        #expect(RenderedView.same(Self.lists[0], copy), "equal contents in another buffer")
    }

    @Test("each distinct list is formatted once and answered with its own header")
    func formattedOncePerList() {
        let view = RenderedView(bytes: Array("{}".utf8), tags: ViewTags(keys: .ephemeral()))
        var made = 0
        func header(_ timings: [OperationTiming]) -> String {
            view.serverTiming(timings) { list in
                made += 1
                return ViewRenderer.serverTiming(list)
            }
        }
        let first = header(Self.lists[0])
        #expect(first == #"op0;desc="static";dur=0, op1;desc="remote";dur=12.0"#)
        #expect(header(Self.lists[1]) == first, "an equal list in another array")
        #expect(made == 1)
        let failed = header(Self.lists[4])
        #expect(failed.contains(#"desc="remote (failed)""#))
        #expect(header(Self.lists[4]) == failed)
        #expect(header(Self.lists[0]) == first)
        #expect(made == 2, "two lists, each formatted once")
        #expect(header(Self.lists[3]).contains("dur=13.0"))
        #expect(made == 3)
    }
}
