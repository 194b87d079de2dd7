import CCurl
import Foundation
import HubSync
import Synchronization

/// libcurl's multi interface driven by one dedicated thread.
///
/// Requests arrive through ``perform(_:)`` from any task; the curl thread picks them up (woken
/// with `curl_multi_wakeup`), runs every transfer with `curl_multi_perform`/`curl_multi_poll`, and
/// resumes each caller's continuation when its transfer is done. Nothing here ever blocks
/// Swift's cooperative pool: the only blocking call, `curl_multi_poll`, runs on the curl thread.
/// Connections live in the multi handle's connection cache and are reused across requests.
///
/// `@unchecked Sendable`: `multi`, `active` and `easyPool` are touched only on the curl thread
/// (created in `init` before the thread starts, released by the thread as it exits); the only
/// call made from other threads is `curl_multi_wakeup`, which libcurl documents as thread-safe.
/// Everything else crosses threads through `commands`, a ``Locked`` (`Mutex`).
final class CurlEngine: @unchecked Sendable {
    private struct Commands {
        var adds: [CurlTransfer] = []
        var cancels: [CurlTransfer] = []
        var isShutdown = false
    }

    private let multi: UnsafeMutableRawPointer
    private let configuration: UpstreamConfiguration
    private let counters: UpstreamCounters
    private let commands = Locked(Commands())
    private var active: [ObjectIdentifier: CurlTransfer] = [:]
    private var easyPool: [UnsafeMutableRawPointer] = []
    private static let maxPooledHandles = 64

    private static let globalInit: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    init(configuration: UpstreamConfiguration, counters: UpstreamCounters) {
        Self.globalInit
        guard let multi = curl_multi_init() else { fatalError("curl_multi_init failed") }
        self.multi = multi
        self.configuration = configuration
        self.counters = counters
        _ = hub_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, configuration.maxConnectionsPerHost))
        _ = hub_curl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(1, configuration.maxIdleConnections))
        let thread = Thread { [self] in self.run() }
        thread.name = "hub-upstream-curl"
        thread.start()
    }

    /// Runs `request` on the curl thread. Task cancellation removes the transfer and throws
    /// `CancellationError`; after ``shutdown()`` every call fails.
    func perform(_ request: UpstreamRequest) async throws -> CurlResult {
        // Without a scheme curl would guess one (and resolve the "host"): refuse up front.
        guard CurlTransfer.hasAllowedScheme(request.url) else { throw UpstreamError.invalidURL }
        let transfer = CurlTransfer(request: request, maxResponseBytes: configuration.maxResponseBytes)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<CurlResult, any Error>) in
                transfer.continuation = continuation
                enum Outcome { case queued, cancelled, shutDown }
                // Checking cancellation under the same lock as onCancel makes the race benign: either
                // onCancel ran first (we see isCancelled) or its cancel command follows our add.
                let outcome = commands.withLock { commands -> Outcome in
                    if Task.isCancelled { return .cancelled }
                    if commands.isShutdown { return .shutDown }
                    commands.adds.append(transfer)
                    return .queued
                }
                switch outcome {
                case .queued: curl_multi_wakeup(multi)
                case .cancelled: continuation.resume(throwing: CancellationError())
                case .shutDown: continuation.resume(throwing: UpstreamError.other("client shut down"))
                }
            }
        } onCancel: {
            let queued = commands.withLock { commands in
                guard !commands.isShutdown else { return false }
                commands.cancels.append(transfer)
                return true
            }
            if queued { curl_multi_wakeup(multi) }
        }
    }

    /// Stops the curl thread: queued and running transfers fail, connections close. Idempotent.
    func shutdown() {
        let first = commands.withLock { commands in
            defer { commands.isShutdown = true }
            return !commands.isShutdown
        }
        if first { curl_multi_wakeup(multi) }
    }

    // MARK: - The curl thread

    private func run() {
        var running: Int32 = 0
        while true {
            let (adds, cancels, isShutdown) = commands.withLock { commands in
                defer { commands.adds.removeAll(); commands.cancels.removeAll() }
                return (commands.adds, commands.cancels, commands.isShutdown)
            }
            for transfer in adds { start(transfer) }
            for transfer in cancels { stop(transfer, with: CancellationError()) }
            if isShutdown { break }
            _ = curl_multi_perform(multi, &running)
            collectFinished()
            _ = curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        for transfer in Array(active.values) { stop(transfer, with: UpstreamError.other("client shut down")) }
        for easy in easyPool { curl_easy_cleanup(easy) }
        easyPool.removeAll()
        curl_multi_cleanup(multi)
    }

    private func start(_ transfer: CurlTransfer) {
        guard let easy = easyPool.popLast() ?? curl_easy_init() else {
            return finish(transfer, .failure(.other("curl_easy_init failed")))
        }
        if let error = transfer.configure(easy, defaults: configuration) {
            recycle(easy)
            return finish(transfer, .failure(error))
        }
        guard curl_multi_add_handle(multi, easy) == CURLM_OK else {
            recycle(easy)
            return finish(transfer, .failure(.other("curl_multi_add_handle failed")))
        }
        active[ObjectIdentifier(transfer)] = transfer
        counters.requestsStarted.add(1, ordering: .relaxed)
    }

    /// Removes a running transfer (cancellation, shutdown); a transfer that already finished
    /// or was never added is left alone (its continuation was or will be resumed elsewhere).
    private func stop(_ transfer: CurlTransfer, with error: any Error) {
        guard active.removeValue(forKey: ObjectIdentifier(transfer)) != nil, let easy = transfer.easy else { return }
        _ = curl_multi_remove_handle(multi, easy)
        countConnections(easy)
        transfer.releaseResources()
        recycle(easy)
        transfer.continuation.take()?.resume(throwing: error)
    }

    private func collectFinished() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = hub_curl_msg_result(message)
            var pointer: UnsafeMutableRawPointer?
            _ = hub_curl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &pointer)
            guard let pointer else { continue }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(pointer).takeUnretainedValue()
            guard active.removeValue(forKey: ObjectIdentifier(transfer)) != nil else { continue }
            let result = transfer.result(code: code)
            _ = curl_multi_remove_handle(multi, easy)
            countConnections(easy)
            transfer.releaseResources()
            recycle(easy)
            finish(transfer, result)
        }
    }

    private func countConnections(_ easy: UnsafeMutableRawPointer) {
        var connects = 0
        _ = hub_curl_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects)
        if connects > 0 { counters.connectionsOpened.add(connects, ordering: .relaxed) }
    }

    private func recycle(_ easy: UnsafeMutableRawPointer) {
        guard easyPool.count < Self.maxPooledHandles else { return curl_easy_cleanup(easy) }
        curl_easy_reset(easy)
        easyPool.append(easy)
    }

    private func finish(_ transfer: CurlTransfer, _ result: Result<CurlResult, UpstreamError>) {
        transfer.releaseResources()
        transfer.continuation.take()?.resume(with: result.mapError { $0 as any Error })
    }
}
