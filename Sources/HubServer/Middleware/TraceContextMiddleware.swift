import HubEngine
import HubHTTP
import HubOperations

/// Accepts or starts the request's W3C trace (``TraceContext``): records this server's span and
/// the `tracestate` on the ``RequestContext`` (log lines carry its trace id). The request goes
/// on unchanged; ``RequestBridge`` gives the engine that span as its `traceparent`, so the
/// engine's upstream fetches become its children.
struct TraceContextMiddleware: HTTPMiddleware {
    func before(_ request: HTTPRequest, context: RequestContext) throws -> HTTPResponse? {
        begin(request, context)
        return nil
    }

    /// Records this server's span on the context. Kept in the context, not written into the
    /// request (no copy of it per request): the bridge gives the engine the context as the
    /// request's ``RequestTrace`` in place of the client's headers.
    private func begin(_ request: HTTPRequest, _ context: RequestContext) {
        if request.headers.contains(TraceContext.parentHeader) {
            // Continued when first read: parsing the client's span and drawing this server's cost
            // about 2.5 us, which a held view that fetches nothing and logs nothing never needs.
            // The headers are read then too (a 55-byte `traceparent` is a string of its own).
            context.beginTrace { [request] in
                let trace = TraceContext(
                    traceParent: request.headers[TraceContext.parentHeader], traceState: request.headers[TraceContext.stateHeader])
                return (trace.traceParent, trace.state)
            }
        } else {
            // Made when first read (a fetch or a log line): most held-view requests never do.
            context.startTrace(TraceContext.newTraceParent)
        }
    }
}

/// The engine reads a request's trace from its context (``RequestContext/trace``), which makes a
/// new trace only when first read.
extension RequestContext: RequestTrace {}
