import HubEngine
import HubModel
import HubOperations
import HubPrimitives
import HubSync

/// Carries invalidations between replicas through the shared state store's change feed
/// (PostgreSQL: `LISTEN hub_state`). An accepted invalidation is written as the state record
/// `invalidation/<random id>` (its JSON, as `POST /invalidate` reads it, kept ``retention``),
/// and the write's notification, which carries only the key and version (NOTIFY payloads are
/// limited to 8000 bytes; the record holds up to 64 KiB), reaches every replica: each reads the
/// record and applies it. The replica that wrote it applied it already and skips its own ids.
///
/// On SQLite and memory stores nothing is written: each process has a store of its own, and an
/// invalidation is that process's alone. An invalidation published while a replica's listening
/// connection was down is not replayed to it (its cached content expires as the upstream said).
final class InvalidationFeed: Sendable {
    static let keyPrefix = "invalidation/"
    /// How long the record of an invalidation is kept (purged with other expired state).
    static let retention: Int64 = 600
    /// Own ids remembered until their notification returns.
    static let maximumOwnIDs = 4096

    private let store: any StateStore
    private let wallClock: @Sendable () -> Int64
    private let ownIDs = Locked<Set<String>>([])
    /// Applies an invalidation another replica accepted.
    private let apply: Locked<Receiver?> = Locked(nil)

    /// What receives another replica's invalidation (a struct: ``Locked`` holds no bare function).
    struct Receiver: Sendable {
        let receive: @Sendable (ContentInvalidation) async -> Void
    }

    init(store: any StateStore, wallClock: @escaping @Sendable () -> Int64) {
        self.store = store
        self.wallClock = wallClock
    }

    /// Whether invalidations travel to other replicas: the store is shared (PostgreSQL).
    var isShared: Bool { store.backend == "postgres" }

    func onReceive(_ receive: @escaping @Sendable (ContentInvalidation) async -> Void) {
        apply.withLock { $0 = Receiver(receive: receive) }
    }

    /// Writes `invalidation` for the other replicas; `false` when the store refused (it is then
    /// this replica's alone). A no-op returning `true` on a store of this process's own.
    @discardableResult
    func publish(_ invalidation: ContentInvalidation) async -> Bool {
        guard isShared else { return true }
        let id = SecureRandom.hex(bytes: 16)
        guard let key = StateKey(rawValue: Self.keyPrefix + id) else { return false }
        ownIDs.withLock { ids in
            if ids.count >= Self.maximumOwnIDs { ids.removeAll() }
            ids.insert(id)
        }
        let now = wallClock()
        do {
            _ = try await store.write(
                key, bytes: InvalidationRequest.json(invalidation).jsonBytes, shape: 1, expected: 0,
                expiresAt: now + Self.retention, now: now)
            return true
        } catch {
            ownIDs.withLock { _ = $0.remove(id) }
            return false
        }
    }

    /// A change the store reported: another replica's invalidation is read and applied.
    func changed(_ key: StateKey, version: Int64) {
        guard version > 0, key.rawValue.hasPrefix(Self.keyPrefix) else { return }
        let id = String(key.rawValue.dropFirst(Self.keyPrefix.count))
        guard !ownIDs.withLock({ $0.remove(id) != nil }), let receiver = apply.withLock({ $0 }) else { return }
        let store = self.store
        let now = wallClock()
        Task {
            guard let record = try? await store.read(key, now: now),
                let value = try? JSONParser().parse(record.bytes), let object = value.objectValue,
                let invalidation = try? InvalidationRequest.invalidation(from: object)
            else { return }
            await receiver.receive(invalidation)
        }
    }
}
