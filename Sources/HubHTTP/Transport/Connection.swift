import Dispatch

/// One client socket: reads and parses requests, runs the responder for one request at a time,
/// writes responses in order, and enforces the deadlines.
///
/// `@unchecked Sendable` is safe because every mutable property is read and written only on
/// `queue`, a serial queue: the Dispatch sources deliver their handlers there, and every other
/// entry point (``start()``, ``beginDrain()``, ``forceClose()``, the responder's completion and
/// stream elements) first hops onto it with `queue.async`. `assertOnQueue()` checks this in debug.
///
/// The descriptor is closed only in the cancel handler of the last fd-backed source to finish
/// cancelling (the read source, and the write source once one was needed).
final class Connection: @unchecked Sendable {
    private enum Deadline { case none, header, body, idle, send, linger }

    let fd: Int32
    let remoteAddress: String?
    private let queue: DispatchQueue
    private let core: ServerCore
    private var configuration: HTTPServerConfiguration { core.configuration }

    private var readSource: (any DispatchSourceRead)?
    private var writeSource: (any DispatchSourceWrite)?
    private var timer: (any DispatchSourceTimer)?
    private var heartbeat: (any DispatchSourceTimer)?
    private var openSources = 0
    private var readSuspended = true
    private var writeSuspended = true

    private var parser: RequestParser
    private var out: [UInt8] = []
    private var outOffset = 0
    private var afterFlush: (() -> Void)?

    private var inFlight = false
    private var lingering = false
    private var closed = false
    private var draining = false
    private var requestsServed = 0
    private var streaming = false
    private var chunkedStream = false
    private var streamTask: Task<Void, Never>?
    private var readPhase: RequestParser.Phase? = .head
    private var deadline = Deadline.none
    private var deadlineAt = DispatchTime.distantFuture
    private var timerFiresAt = DispatchTime.distantFuture

    private let executor: QueueTaskExecutor

    init(fd: Int32, remoteAddress: String?, executor: QueueTaskExecutor, core: ServerCore) {
        self.fd = fd
        self.remoteAddress = remoteAddress
        self.executor = executor
        self.queue = DispatchQueue(label: "hubhttp.connection", target: executor.queue)
        self.core = core
        self.parser = RequestParser(limits: core.configuration.limits)
    }

    private func assertOnQueue() {
        #if DEBUG
        dispatchPrecondition(condition: .onQueue(queue))
        #endif
    }

    // MARK: - Lifecycle

    /// Creates the sources and starts reading; the header deadline runs from now.
    func start() {
        queue.async { [self] in
            let read = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
            read.setEventHandler { [unowned self] in handleReadable() }
            read.setCancelHandler { [self] in sourceCancelled() }
            readSource = read
            openSources += 1
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.setEventHandler { [unowned self] in deadlineFired() }
            timer.schedule(deadline: .distantFuture)
            timer.resume()
            self.timer = timer
            setDeadline(.header, configuration.timeouts.header)
            resumeRead()
        }
    }

    /// Shutdown began: idle connections close now, a request in progress finishes with `Connection: close`.
    func beginDrain() {
        queue.async { [self] in
            draining = true
            if !closed, !inFlight, !lingering, parser.phase == .idle { close() }
        }
    }

    /// Closes now, whatever is in progress (end of the drain deadline).
    func forceClose() {
        queue.async { [self] in close() }
    }

    private func close() {
        assertOnQueue()
        guard !closed else { return }
        closed = true
        streaming = false
        streamTask?.cancel()
        streamTask = nil
        heartbeat?.cancel()
        heartbeat = nil
        timer?.cancel()
        afterFlush = nil
        if let readSource {
            readSource.cancel()
            if readSuspended { readSource.resume(); readSuspended = false }
        }
        if let writeSource {
            writeSource.cancel()
            if writeSuspended { writeSource.resume(); writeSuspended = false }
        }
        if openSources == 0 { finalClose() }
    }

    private func sourceCancelled() {
        assertOnQueue()
        openSources -= 1
        if openSources == 0 { finalClose() }
    }

    private func finalClose() {
        Syscall.close(fd)
        core.unregister(self)
    }

    /// Half-closes, then reads and discards until the peer closes or a short deadline passes, so an
    /// early error response (413, 400) is not destroyed by a reset while the client still sends.
    private func lingerThenClose() {
        assertOnQueue()
        guard !closed else { return }
        inFlight = false
        lingering = true
        Syscall.shutdownWrite(fd)
        setDeadline(.linger, .seconds(2))
        resumeRead()
    }

    // MARK: - Reading

    private func resumeRead() {
        if readSuspended, !closed, let readSource {
            readSuspended = false
            readSource.resume()
        }
    }

    private func suspendRead() {
        if !readSuspended, let readSource {
            readSuspended = true
            readSource.suspend()
        }
    }

    private func handleReadable() {
        assertOnQueue()
        guard !closed else { return }
        if inFlight {
            // One request at a time: stop watching the socket until the response is written.
            // (Suspending lazily, only when bytes arrive early, saves two source operations per request.)
            suspendRead()
            return
        }
        let result = withUnsafeTemporaryAllocation(byteCount: 16 * 1024, alignment: 16) { buffer -> IOResult in
            let result = Syscall.read(fd, into: buffer)
            if case .bytes(let count) = result, !lingering {
                parser.append(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            }
            return result
        }
        switch result {
        case .wouldBlock: return
        case .closed: close()
        case .bytes: if !lingering { processBuffer() }
        }
    }

    /// Parses what is buffered: starts the next request, or waits for more bytes.
    private func processBuffer() {
        assertOnQueue()
        while !inFlight, !closed, !lingering {
            let result: RequestParser.Result
            do {
                result = try parser.parse()
            } catch {
                fail(with: error)
                return
            }
            switch result {
            case .needMoreData:
                updateReadDeadline()
                resumeRead()
                return
            case .expectContinue:
                write(ResponseEncoder.continueHead, [], then: nil)
            case .request(let request):
                dispatch(request)
                return
            }
        }
    }

    /// Keeps the deadline in step with the parser's phase; each deadline runs from the phase's start.
    private func updateReadDeadline() {
        let phase = parser.phase
        guard phase != readPhase else { return }
        readPhase = phase
        switch phase {
        case .idle: setDeadline(.idle, configuration.timeouts.idle)
        case .head: setDeadline(.header, configuration.timeouts.header)
        case .body: setDeadline(.body, configuration.timeouts.body)
        }
    }

    /// Answers a request the connection cannot serve (parse error, 408) and closes.
    private func fail(with error: HTTPParseError) {
        assertOnQueue()
        guard !closed, !inFlight, !lingering else { return }
        inFlight = true
        setDeadline(.none, nil)
        send(error.response, method: .get, version: .http1_1, keepAlive: false, requestId: RequestID.generate())
    }

    // MARK: - Responding

    private func dispatch(_ parsed: HTTPRequest) {
        inFlight = true
        readPhase = nil
        setDeadline(.none, nil)
        requestsServed += 1
        var request = parsed
        request.remoteAddress = remoteAddress
        let keepAlive = request.keepAlive && requestsServed < configuration.limits.maxRequestsPerConnection && !draining
        let method = request.method
        let version = request.version
        let context = RequestContext(requestId: RequestID.make(for: request), remoteAddress: remoteAddress)
        let core = self.core
        Task(executorPreference: executor) { [self] in
            let response = await core.respond(to: request, context: context)
            queue.async { [self] in
                send(response, method: method, version: version, keepAlive: keepAlive, requestId: context.requestId)
            }
        }
    }

    private func send(_ response: HTTPResponse, method: HTTPMethod, version: HTTPVersion, keepAlive: Bool, requestId: String) {
        assertOnQueue()
        guard !closed else { return }
        let keepAlive = keepAlive && !draining
        let noBody = response.status.forbidsBody
        switch response.body {
        case .bytes(let body):
            let head = ResponseEncoder.head(
                status: response.status, headers: response.headers, framing: noBody ? .none : .length(body.count),
                keepAlive: keepAlive, version: version, requestId: requestId
            )
            write(head, noBody || method == .head ? [] : body) { [unowned self] in responseFinished(keepAlive: keepAlive) }
        case .stream(let stream):
            if noBody || method == .head {
                let head = ResponseEncoder.head(
                    status: response.status, headers: response.headers, framing: noBody ? .none : .chunked,
                    keepAlive: keepAlive, version: version, requestId: requestId
                )
                write(head, []) { [unowned self] in responseFinished(keepAlive: keepAlive) }
                return
            }
            // HTTP/1.0 has no chunked coding: the stream is delimited by closing the connection.
            let chunked = version == .http1_1
            let head = ResponseEncoder.head(
                status: response.status, headers: response.headers, framing: chunked ? .chunked : .none,
                keepAlive: chunked && keepAlive, version: version, requestId: requestId
            )
            startStream(stream, head: head, chunked: chunked, keepAlive: chunked && keepAlive)
        }
    }

    private func responseFinished(keepAlive: Bool) {
        assertOnQueue()
        guard !closed else { return }
        inFlight = false
        streaming = false
        guard keepAlive, !draining else {
            lingerThenClose()
            return
        }
        setDeadline(.none, nil)
        readPhase = nil
        processBuffer()
    }

    // MARK: - Streaming

    private func startStream(_ stream: HTTPBodyStream, head: [UInt8], chunked: Bool, keepAlive: Bool) {
        streaming = true
        chunkedStream = chunked
        write(head, [], then: nil)
        guard !closed else { return }
        let interval = configuration.sseHeartbeat.nanoseconds
        if stream.wantsHeartbeat, interval > 0, interval < Int(Int32.max) * 1_000_000_000 {
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + .nanoseconds(interval), repeating: .nanoseconds(interval))
            timer.setEventHandler { [unowned self] in _ = enqueueStreamBytes(ServerSentEvent.heartbeat) }
            timer.resume()
            heartbeat = timer
        }
        streamTask = Task { [self] in
            await stream.forEachChunk { chunk in await deliver(chunk) }
            queue.async { [self] in streamFinished(keepAlive: keepAlive) }
        }
    }

    private func deliver(_ chunk: [UInt8]) async -> Bool {
        await withCheckedContinuation { continuation in
            queue.async { [self] in continuation.resume(returning: enqueueStreamBytes(chunk)) }
        }
    }

    /// Queues stream bytes; drops the client when more than `sseBufferBytes` would be waiting.
    private func enqueueStreamBytes(_ bytes: [UInt8]) -> Bool {
        assertOnQueue()
        guard streaming, !closed else { return false }
        let framed = chunkedStream ? ResponseEncoder.chunk(bytes) : bytes
        if out.count - outOffset + framed.count > configuration.sseBufferBytes {
            close()
            return false
        }
        write(framed, [], then: nil)
        return !closed
    }

    private func streamFinished(keepAlive: Bool) {
        assertOnQueue()
        guard streaming, !closed else { return }
        heartbeat?.cancel()
        heartbeat = nil
        streamTask = nil
        if chunkedStream {
            write(ResponseEncoder.lastChunk, []) { [unowned self] in responseFinished(keepAlive: keepAlive) }
        } else {
            write([], []) { [unowned self] in responseFinished(keepAlive: false) }
        }
    }

    // MARK: - Writing

    /// Sends straight away; only what the socket does not take waits for the write source.
    /// `completion` runs once everything queued so far has been sent.
    private func write(_ head: [UInt8], _ body: [UInt8], then completion: (() -> Void)?) {
        assertOnQueue()
        guard !closed else { return }
        let total = head.count + body.count
        if outOffset == out.count {
            if total == 0 {
                completion?()
                return
            }
            let result = head.withUnsafeBytes { head in body.withUnsafeBytes { body in Syscall.send(fd, head, body) } }
            switch result {
            case .closed:
                close()
                return
            case .bytes(let count) where count == total:
                completion?()
                return
            case .bytes(let count):
                if count < head.count {
                    out.append(contentsOf: head[count...])
                    out.append(contentsOf: body)
                } else {
                    out.append(contentsOf: body[(count - head.count)...])
                }
            case .wouldBlock:
                out.append(contentsOf: head)
                out.append(contentsOf: body)
            }
        } else {
            out.append(contentsOf: head)
            out.append(contentsOf: body)
        }
        if let completion {
            if let previous = afterFlush {
                afterFlush = { previous(); completion() }
            } else {
                afterFlush = completion
            }
        }
        armWrite()
    }

    private func armWrite() {
        if writeSource == nil {
            let source = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
            source.setEventHandler { [unowned self] in flush() }
            source.setCancelHandler { [self] in sourceCancelled() }
            writeSource = source
            openSources += 1
        }
        if writeSuspended, let writeSource {
            writeSuspended = false
            writeSource.resume()
        }
        if inFlight, deadline != .send { setDeadline(.send, configuration.timeouts.send) }
    }

    private func flush() {
        assertOnQueue()
        guard !closed else { return }
        if outOffset == out.count {
            suspendWrite()
            return
        }
        let result = out.withUnsafeBytes { bytes in
            Syscall.send(fd, UnsafeRawBufferPointer(rebasing: bytes[outOffset...]), UnsafeRawBufferPointer(start: nil, count: 0))
        }
        switch result {
        case .closed:
            close()
        case .wouldBlock:
            return
        case .bytes(let count):
            outOffset += count
            if outOffset == out.count {
                out.removeAll(keepingCapacity: out.capacity <= 256 * 1024)
                outOffset = 0
                suspendWrite()
                if deadline == .send { setDeadline(.none, nil) }
                let completion = afterFlush
                afterFlush = nil
                completion?()
            } else {
                if outOffset > 64 * 1024 {
                    out.removeSubrange(0..<outOffset)
                    outOffset = 0
                }
                if inFlight { setDeadline(.send, configuration.timeouts.send) }
            }
        }
    }

    private func suspendWrite() {
        if !writeSuspended, let writeSource {
            writeSuspended = true
            writeSource.suspend()
        }
    }

    // MARK: - Deadlines

    /// Sets the current deadline. The timer is reprogrammed only when the new deadline is earlier
    /// than the one it is armed for (each reprogramming wakes Dispatch's manager thread); a timer
    /// that fires early re-arms itself for the current deadline.
    private func setDeadline(_ kind: Deadline, _ duration: Duration?) {
        deadline = kind
        guard let duration, kind != .none else {
            deadlineAt = .distantFuture
            return
        }
        let nanoseconds = duration.nanoseconds
        deadlineAt = nanoseconds >= Int(Int32.max) * 1_000_000_000 ? .distantFuture : .now() + .nanoseconds(nanoseconds)
        if deadlineAt < timerFiresAt, let timer {
            timerFiresAt = deadlineAt
            timer.schedule(deadline: deadlineAt)
        }
    }

    private func deadlineFired() {
        assertOnQueue()
        timerFiresAt = .distantFuture
        guard !closed, deadline != .none else { return }
        if DispatchTime.now() < deadlineAt {
            timerFiresAt = deadlineAt
            timer?.schedule(deadline: deadlineAt)
            return
        }
        switch deadline {
        case .none:
            return
        case .header:
            deadline = .none
            fail(with: .headerTimeout)
        case .body:
            deadline = .none
            fail(with: .bodyTimeout)
        case .idle, .send, .linger:
            close()
        }
    }
}
