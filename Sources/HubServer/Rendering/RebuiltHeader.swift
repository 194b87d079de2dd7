import HubEngine
import HubHTTP

/// `Hub-Rebuilt: state-kept` or `Hub-Rebuilt: state-lost`: what a session rebuilt from its token
/// for this request found of its session-scoped state (``RebuiltState``), so that a client can
/// tell its user. Absent for a session found held and for a rebuild whose first chain run read no
/// session-scoped state (nothing to lose). docs/API.md "Sessions and failed views".
///
/// An event stream carries it twice: as a header of the stream's response (the stream's rebuild
/// is that response's), and as an `event: rebuilt` sent once, before the stream's first `view`
/// event: `EventSource` cannot read response headers, and the `view` event's data is exactly the
/// view model (its `id` is the ETag of those bytes, patches apply to them, and the schema allows
/// no key the view model does not have), so the flag travels in an event of its own, which an
/// `EventSource` listening only for `view` never sees.
enum RebuiltHeader {
    /// The header's name.
    static let name = HubHeaderName.rebuilt

    /// The header's value for `outcome`.
    static func value(_ outcome: RebuiltState) -> String {
        switch outcome {
        case .kept: return "state-kept"
        case .lost: return "state-lost"
        }
    }

    /// `response` with the header when the request rebuilt its session and `outcome` says what it found.
    static func adding(_ outcome: RebuiltState?, to response: HTTPResponse) -> HTTPResponse {
        guard let outcome else { return response }
        var response = response
        response.headers.add(name: name, value: value(outcome))
        return response
    }

    /// The `rebuilt` event sent before the first `view` event of a stream that rebuilt its
    /// session: `event: rebuilt` and `data: {"rebuilt":"state-lost"}`, no `id` (the client's
    /// `Last-Event-ID` stays the last view's).
    static func event(_ outcome: RebuiltState) -> EncodedServerSentEvent {
        switch outcome {
        case .kept: return keptEvent
        case .lost: return lostEvent
        }
    }

    private static let keptEvent = encoded(.kept)
    private static let lostEvent = encoded(.lost)

    private static func encoded(_ outcome: RebuiltState) -> EncodedServerSentEvent {
        EncodedServerSentEvent(ServerSentEvent(event: "rebuilt", data: #"{"rebuilt":""# + value(outcome) + #""}"#))
    }
}
