import Foundation
import HubSync
import Synchronization

/// One provider at run time: its current ``KeySnapshot`` and the loads that replace it.
///
/// Every load (the first, the periodic ones, those a token with an unknown `kid` asks for) goes
/// through ``refresh(onDemand:)``: while one runs, every caller joins it (one fetch, however many
/// verifications wait), and an on-demand load starts only when the provider's last fetch of any
/// kind began at least ``onDemandInterval`` seconds ago (by the verifier's clock). A failed load
/// keeps the last good keys, records its error and logs one line.
final class ProviderKeys: Sendable {
    /// The least time between an on-demand fetch and the provider's previous fetch.
    static let onDemandInterval: Double = 30

    private struct State: Sendable {
        var snapshot = KeySnapshot.empty
        var refreshedAt: Date?
        var error: String?
        /// When the last fetch (of any kind) began.
        var lastFetch: Date?
        /// The load in flight, which callers join, and its number.
        var inFlight: Task<Void, Never>?
        var flight = 0
        /// The periodic refresh loop.
        var loop: Task<Void, Never>?
        var stopped = false
    }

    let settings: JWTProviderSettings
    private let fetcher: KeyFetcher
    private let events: IdentityEvents
    private let clock: @Sendable () -> Date
    private let state = Locked(State())
    private let generation = Atomic<UInt64>(0)

    init(settings: JWTProviderSettings, fetcher: KeyFetcher, events: IdentityEvents, clock: @escaping @Sendable () -> Date) {
        self.settings = settings
        self.fetcher = fetcher
        self.events = events
        self.clock = clock
    }

    /// The keys held now and their generation, read together.
    var keys: (snapshot: KeySnapshot, generation: UInt64) {
        state.withLock { ($0.snapshot, generation.load(ordering: .relaxed)) }
    }

    /// How many times the keys were replaced: +1 at every successful load, whatever it found.
    /// Read without a lock by ``TokenVerifier/recheck(_:)``; written under `state`'s lock with
    /// the snapshot, so ``keys`` reads a pair that belongs together.
    var keyGeneration: UInt64 { generation.load(ordering: .acquiring) }

    /// The provider's status now.
    var status: ProviderStatus {
        state.withLock { ProviderStatus(issuer: settings.issuer, keys: $0.snapshot.count, refreshedAt: $0.refreshedAt, error: $0.error) }
    }

    /// Loads the keys now, or joins the load in flight. `onDemand` (a token named an unknown
    /// `kid`): nothing is fetched when the last fetch began less than ``onDemandInterval`` ago.
    /// Returns once the load it started or joined has finished.
    func refresh(onDemand: Bool) async {
        let now = clock()
        let task: Task<Void, Never>? = state.withLock { state in
            if let running = state.inFlight { return running }
            if state.stopped { return nil }
            if onDemand, let last = state.lastFetch, now.timeIntervalSince(last) < Self.onDemandInterval { return nil }
            state.lastFetch = now
            state.flight += 1
            let flight = state.flight
            let task = Task { await self.load(flight: flight) }
            state.inFlight = task
            return task
        }
        await task?.value
    }

    /// Starts the periodic refresh: every ``JWTProviderSettings/refreshSeconds`` seconds.
    func startLoop() {
        let interval = Duration.seconds(min(max(settings.refreshSeconds, JWTProviderSettings.refreshRange.lowerBound), JWTProviderSettings.refreshRange.upperBound))
        state.withLock { state in
            guard !state.stopped, state.loop == nil else { return }
            state.loop = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    guard !Task.isCancelled, let self else { return }
                    await self.refresh(onDemand: false)
                }
            }
        }
    }

    /// Cancels the periodic refresh and any load in flight; no load starts after.
    func stop() {
        let tasks = state.withLock { state in
            state.stopped = true
            defer { state.loop = nil }
            return [state.loop, state.inFlight]
        }
        for task in tasks { task?.cancel() }
    }

    /// One load: fetch, build the snapshot, swap it in (or record the failure), end the flight.
    private func load(flight: Int) async {
        let result: Result<KeySnapshot, KeyLoadError>
        do throws(KeyLoadError) {
            let document = try await fetcher.jwks(for: settings)
            result = .success(try await KeySnapshot.load(jwks: document, algorithms: settings.algorithms))
        } catch {
            result = .failure(error)
        }
        let now = clock()
        let (recovered, kept): (Bool, Int) = state.withLock { state in
            if state.flight == flight { state.inFlight = nil }
            switch result {
            case .success(let snapshot):
                let recovered = state.error != nil
                state.snapshot = snapshot
                generation.add(1, ordering: .releasing)
                state.refreshedAt = now
                state.error = nil
                return (recovered, snapshot.count)
            case .failure(let error):
                state.error = error.message
                return (false, state.snapshot.count)
            }
        }
        switch result {
        case .success:
            if recovered { events.log("identity: keys of \(settings.issuer) refreshed again (\(kept) keys)") }
            events.refreshed(true)
        case .failure(let error):
            events.log("identity: keys of \(settings.issuer) not refreshed: \(error.message); keeping \(kept) keys")
            events.refreshed(false)
        }
    }
}
