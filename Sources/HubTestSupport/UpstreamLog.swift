import HubSync

/// What a ``TestUpstream`` has received, in arrival order.
public final class UpstreamLog: Sendable {
    private let requests = Locked<[TestUpstream.Request]>([])

    func append(_ request: TestUpstream.Request) { requests.withLock { $0.append(request) } }

    /// Every request so far.
    public var all: [TestUpstream.Request] { requests.withLock { $0 } }

    /// The requests for `path` (percent-decoded, without the query).
    public func hits(path: String) -> [TestUpstream.Request] { all.filter { $0.path == path } }

    /// How many requests for `path` arrived.
    public func count(path: String) -> Int { hits(path: path).count }
}
