import HubPrimitives

/// A summary of the header fields a view request keeps (``ViewRequest/headers`` less the trace
/// context) that does not depend on their order: two requests that keep the same fields have
/// the same fingerprint, so a request with another fingerprint is known to be another client
/// request without comparing field by field. Equal fingerprints prove nothing; the fields are
/// compared then. A caller holding a request's fields (an HTTP request) adds each value it
/// would keep, in any order (``ViewEngine/openView(viewURI:fingerprint:sameClient:request:)``).
public struct KeptFieldsFingerprint: Equatable, Sendable {
    private var sum: UInt64 = 0
    private var count = 0

    /// The fingerprint of no fields.
    public init() {}

    /// The fingerprint of the fields `request` keeps.
    init(of request: ViewRequest) {
        for field in request.headers where !ViewRequest.isTraceContext(field.name) {
            var value = field.value
            value.withUTF8 { add(value: $0) }
        }
    }

    /// Adds one kept field, by its value's bytes.
    public mutating func add(value: UnsafeBufferPointer<UInt8>) {
        sum &+= FNV1a.hash(value)
        count += 1
    }
}
