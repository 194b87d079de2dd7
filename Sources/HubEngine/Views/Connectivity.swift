/// Whether the client is online (S110..S115). On the server it is client-reported with the
/// `Hub-Connectivity` header; a change on a session reloads it from a blank state (S111).
public enum Connectivity: String, Sendable, Hashable {
    case online
    case offline
}
