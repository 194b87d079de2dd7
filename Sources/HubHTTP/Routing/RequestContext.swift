import Synchronization

/// Per-request values shared by middleware, the router and endpoints.
///
/// A final class so that what the router learns (``routeTemplate``, ``pathParameters``) is seen by
/// middleware that wraps the router, after `next.respond` returns (for example a metrics
/// middleware labelling by route template). The mutable part sits behind a lock.
public final class RequestContext: Sendable {
    /// The request id: the client's sane `X-Request-Id`, or a generated one (its text made on
    /// each read: the response head writes ``requestIdentifier`` without it).
    public var requestId: String { requestIdentifier.text }
    /// The request id as the head writes it.
    public let requestIdentifier: RequestID.Value
    /// When the request was complete and handed to the responder.
    public let startTime: ContinuousClock.Instant
    /// The peer's IP address, when known.
    public let remoteAddress: String?

    /// What the router and the trace middleware learn: one lock for both (one allocation per request).
    private struct Learned: Sendable {
        var template: String?
        var parameters: [String: String] = [:]
        var traceParent: String?
        var traceState: String?
        /// Makes ``traceParent`` on its first read, for a request that starts a new trace.
        var makeTraceParent: (@Sendable () -> String)?
        /// Makes ``traceParent`` and ``traceState`` on their first read, for a request whose
        /// client sent a trace to continue (``beginTrace(_:)``).
        var makeTrace: (@Sendable () -> (parent: String, state: String?))?
        var principal: (any Sendable)?
    }

    /// Inline (`Mutex`, not a `Locked` box): a context is made per request, and the box was one
    /// allocation and two generic-metadata lookups more each time.
    private let learned = Mutex(Learned())

    public convenience init(requestId: String, remoteAddress: String? = nil, startTime: ContinuousClock.Instant = .now) {
        self.init(requestIdentifier: .text(requestId), remoteAddress: remoteAddress, startTime: startTime)
    }

    /// A context whose request id is `requestIdentifier` (``RequestID/value(for:)``).
    public init(requestIdentifier: RequestID.Value, remoteAddress: String? = nil, startTime: ContinuousClock.Instant = .now) {
        self.requestIdentifier = requestIdentifier
        self.remoteAddress = remoteAddress
        self.startTime = startTime
    }

    /// A context for `request`: echoes its `X-Request-Id` when sane, else generates one.
    public convenience init(for request: HTTPRequest) {
        self.init(requestIdentifier: RequestID.value(for: request), remoteAddress: request.remoteAddress)
    }

    /// The matched route's template, for example `/items/{id}`; nil before routing or when none matched.
    public var routeTemplate: String? { learned.withLock { $0.template } }

    /// The values of the matched route's `{name}` segments, percent-decoded.
    public var pathParameters: [String: String] { learned.withLock { $0.parameters } }

    /// The request's W3C trace context as this server's span (a `traceparent` value), set by
    /// the middleware that accepts or starts the trace; nil when none did.
    public var traceParent: String? { trace.parent }

    /// ``traceParent`` and the vendor `tracestate` that goes with it (kept only with a valid
    /// incoming `traceparent`), read together. A trace begun with ``startTrace(_:)`` is made
    /// here on the first read, and every later read sees the same one.
    public var trace: (parent: String?, state: String?) {
        let (parent, state, makeParent, make) = learned.withLock {
            ($0.traceParent, $0.traceState, $0.makeTraceParent, $0.makeTrace)
        }
        guard parent == nil, makeParent != nil || make != nil else { return (parent, state) }
        // Made outside the lock (it draws random bits behind a lock of its own); when two
        // threads race here, the first one stored is the trace.
        let made: (parent: String, state: String?) = if let make { make() } else { (makeParent!(), nil) }
        return learned.withLock {
            if $0.traceParent == nil {
                $0.traceParent = made.parent
                $0.traceState = made.state
            }
            $0.makeTraceParent = nil
            $0.makeTrace = nil
            return ($0.traceParent, $0.traceState)
        }
    }

    /// Sets the trace context (``trace``).
    public func setTrace(parent: String?, state: String?) {
        learned.withLock {
            $0.traceParent = parent
            $0.traceState = state
            $0.makeTraceParent = nil
            $0.makeTrace = nil
        }
    }

    /// Starts a new trace for this request without making it yet: `make` writes its
    /// `traceparent` when ``trace`` is first read. Most requests never read it (a held view
    /// that fetches nothing and writes no log line), and a new trace costs random bits and a
    /// string.
    public func startTrace(_ make: @escaping @Sendable () -> String) {
        learned.withLock {
            $0.traceParent = nil
            $0.traceState = nil
            $0.makeTraceParent = make
            $0.makeTrace = nil
        }
    }

    /// Begins this request's trace without making it yet: `make` gives its `traceparent` and
    /// `tracestate` when ``trace`` is first read (for a client's trace, continuing it means
    /// parsing the client's `traceparent` and drawing a span id; a held view that fetches
    /// nothing and writes no log line never needs either).
    public func beginTrace(_ make: @escaping @Sendable () -> (parent: String, state: String?)) {
        learned.withLock {
            $0.traceParent = nil
            $0.traceState = nil
            $0.makeTraceParent = nil
            $0.makeTrace = make
        }
    }

    /// Who the request comes from, as the application verified it (a user, set before the
    /// endpoint runs); `nil`: anonymous, or not verified yet.
    public var principal: (any Sendable)? { learned.withLock { $0.principal } }

    /// Sets ``principal``.
    public func setPrincipal(_ principal: (any Sendable)?) {
        learned.withLock { $0.principal = principal }
    }

    /// Records the matched route (called by ``Router``).
    public func setRoute(template: String, parameters: [String: String]) {
        learned.withLock {
            $0.template = template
            $0.parameters = parameters
        }
    }
}
