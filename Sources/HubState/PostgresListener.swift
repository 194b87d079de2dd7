import CPostgres
import Foundation
import HubEngine
import Synchronization

/// The change feed of a ``PostgresStateStore``: one connection of its own, `LISTEN hub_state`,
/// on a thread of its own (libpq blocks). A notification carries `<key> <version>`; each one
/// becomes a ``StateStoreEvent/changed(_:version:)``. Each time it connects (the first time
/// too) it reports ``StateStoreEvent/resync``, so the engine loads the revocations and compares
/// the versions it follows: nothing missed while no connection listened is lost. When the
/// connection drops it reconnects (backing off to 2 s).
final class PostgresListener: Sendable {
    static let channel = "hub_state"

    private let url: String
    private let deliver: @Sendable (StateStoreEvent) -> Void
    private let stopped = Atomic<Bool>(false)
    private let connected = Atomic<Bool>(false)

    init(url: String, deliver: @escaping @Sendable (StateStoreEvent) -> Void) {
        self.url = url
        self.deliver = deliver
    }

    /// Whether the listening connection is up now (and its resync delivered).
    var isConnected: Bool { connected.load(ordering: .acquiring) }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "hub-state-listener"
        thread.start()
    }

    /// Ends the thread within a poll interval.
    func stop() {
        stopped.store(true, ordering: .relaxed)
    }

    private func run() {
        let connection = PostgresConnection(url: url, retryDelay: .zero)
        var backoff = Duration.milliseconds(100)
        while !stopped.load(ordering: .relaxed) {
            guard let handle = try? connection.connected(), (try? connection.execute("LISTEN \(Self.channel)")) != nil else {
                connected.store(false, ordering: .relaxed)
                connection.drop()
                Thread.sleep(forTimeInterval: Double(backoff.components.attoseconds) / 1e18 + Double(backoff.components.seconds))
                backoff = min(backoff * 2, .seconds(2))
                continue
            }
            backoff = .milliseconds(100)
            // Changes made while no connection listened are found by comparing versions; on the
            // first connect too, so that revocations are loaded as soon as the database answers
            // (a replica started while it was down). Connected once that is delivered: what is
            // cached after `isConnected` says so is never dropped by this connection's resync.
            deliver(.resync)
            connected.store(true, ordering: .releasing)
            listen(on: handle)
            connected.store(false, ordering: .relaxed)
            connection.drop()
        }
        connection.drop()
    }

    /// Delivers notifications until the connection fails or the listener stops.
    private func listen(on handle: OpaquePointer) {
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        while !stopped.load(ordering: .relaxed) {
            let ready = poll(&descriptor, 1, 250)
            if ready < 0, errno != EINTR { return }
            guard ready > 0 else { continue }
            guard PQconsumeInput(handle) == 1, PQstatus(handle) == CONNECTION_OK else { return }
            while let notification = PQnotifies(handle) {
                let payload = notification.pointee.extra.map { String(cString: $0) } ?? ""
                PQfreemem(notification)
                if let event = PostgresListenerPayload.parse(payload) { deliver(event) }
            }
        }
    }

}

/// The payload of a `hub_state` notification: `<key> <version>`.
public enum PostgresListenerPayload {
    /// The change a payload reports; `nil` when it is not one (the version follows the last
    /// space: a subject may contain spaces).
    public static func parse(_ payload: String) -> StateStoreEvent? {
        guard let space = payload.lastIndex(of: " "), let version = Int64(payload[payload.index(after: space)...]),
            let key = StateKey(rawValue: String(payload[..<space]))
        else { return nil }
        return .changed(key, version: version)
    }
}
