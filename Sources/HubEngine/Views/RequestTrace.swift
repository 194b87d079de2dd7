/// Where a request's W3C trace context comes from, asked only when something uses it: a remote
/// operation's fetch (its child span) or a log line. Starting a trace costs 256 random bits and
/// a string, and most requests for a held view never read one, so the server makes it on the
/// first read (HubServer's `RequestContext` is one).
public protocol RequestTrace: AnyObject, Sendable {
    /// The request's `traceparent` value and the `tracestate` that goes with it; the parent is
    /// nil when the request has no trace. The same values on every read.
    var trace: (parent: String?, state: String?) { get }
}
