import CEpoll
#if canImport(Glibc)
import Glibc
#endif

/// One client socket on one ``EventLoop``: reads and parses requests, runs the responder for one
/// request at a time, writes responses in order, and enforces the deadlines.
///
/// The socket is registered once, edge-triggered, for reading, writing and hang-ups, so serving a
/// request costs no `epoll_ctl`: `readable` and `writable` remember what the last edges said.
/// A request's task prefers the loop as its executor, so when the responder does not suspend on
/// another executor the response is written in the same loop turn as the request was read.
///
/// `@unchecked Sendable` is safe because every mutable property is read and written only on the
/// loop's thread: events, timers and the request task's continuation run there, and the entry
/// points called from elsewhere (``beginDrain()``, ``forceClose()``, the responder's completion
/// when it finishes on another executor, stream elements) hop there with ``EventLoop/execute(_:)``.
final class Connection: EventLoopHandler, EventLoopJob, @unchecked Sendable {
    enum Deadline { case none, header, body, idle, send, linger }

    /// A response made at once, waiting for the end of the loop's batch.
    struct ReadyResponse: Sendable {
        let response: HTTPResponse
        let method: HTTPMethod
        let version: HTTPVersion
        let keepAlive: Bool
        let requestId: RequestID.Value
    }

    let fd: Int32
    let remoteAddress: String?
    let loop: EventLoop
    let core: ServerCore
    var configuration: HTTPServerConfiguration { core.configuration }

    /// This connection's request parser. Loop-confined like the connection; exclusivity is not
    /// checked at run time (the check, a probe of a thread-local access set on every parse, was
    /// about 1% of a loop's user time under load): each access is one `append` or `parse` call on the
    /// loop's thread, and the parser (a pure state machine) calls out to nothing that reaches
    /// this connection.
    @exclusivity(unchecked) var parser: RequestParser
    var out: [UInt8] = []
    var outOffset = 0
    /// The rest of a body file the socket did not take at once, sent from the file on the next
    /// write edges, ahead of `out` (``flush()``).
    var pendingFile: PendingFileSend?
    var afterFlush: (() -> Void)?
    /// The response ``runOnLoop()`` sends (one request is in flight at a time).
    var readyResponse: ReadyResponse?
    /// The last read edge may have left bytes unread.
    var readable = false
    /// The socket took everything so far; false after `EAGAIN` until the next write edge.
    var writable = true
    /// The peer shut its sending side: reads continue until they return end of stream.
    var peerShutdown = false

    var inFlight = false
    var lingering = false
    var closed = false
    var draining = false
    var requestsServed = 0
    /// The last request parsed from one whole read, for a read that repeats it byte for byte.
    var repeated = RepeatedRequest()
    var streaming = false
    var chunkedStream = false
    var streamTask: Task<Void, Never>?
    /// Changes when a stream starts or ends, so a heartbeat timer of an earlier stream stops.
    var streamGeneration = 0
    var readPhase: RequestParser.Phase? = .head
    var deadline = Deadline.none
    var deadlineAt = UInt64.max
    var timerFiresAt = UInt64.max

    init(fd: Int32, remoteAddress: String?, loop: EventLoop, core: ServerCore) {
        self.fd = fd
        self.remoteAddress = remoteAddress
        self.loop = loop
        self.core = core
        self.parser = RequestParser(limits: core.configuration.limits, remoteAddress: remoteAddress)
    }

    func assertInLoop() {
        #if DEBUG
        precondition(loop.inLoop, "connection used off its event loop")
        #endif
    }

    /// Runs `body` on the loop: now when already there.
    func onLoop(_ body: @escaping @Sendable () -> Void) {
        if loop.inLoop { body() } else { loop.execute(body) }
    }

    // MARK: - Lifecycle

    /// Registers the socket with the loop; the header deadline runs from now. On the loop's thread.
    func start() {
        assertInLoop()
        guard loop.register(fd, self) else {
            closed = true
            Syscall.close(fd)
            core.unregister(self)
            return
        }
        setDeadline(.header, configuration.timeouts.header)
    }

    /// Shutdown began: a request in progress finishes with `Connection: close`; an idle
    /// connection gets `timeouts.drainIdle` for a request already on its way, then closes.
    func beginDrain() {
        loop.execute { [self] in
            draining = true
            guard !closed, !inFlight, !lingering, parser.phase == .idle else { return }
            let timeouts = configuration.timeouts
            setDeadline(.idle, min(timeouts.drainIdle, timeouts.drain))
        }
    }

    /// Closes now, whatever is in progress (end of the drain deadline).
    func forceClose() {
        loop.execute { [self] in close() }
    }

    func close() {
        assertInLoop()
        guard !closed else { return }
        closed = true
        streaming = false
        streamGeneration += 1
        streamTask?.cancel()
        streamTask = nil
        afterFlush = nil
        readyResponse = nil
        out = []
        outOffset = 0
        pendingFile = nil
        loop.deregister(fd, closing: true)
        Syscall.close(fd)
        core.unregister(self)
    }

    /// Half-closes, then reads and discards until the peer closes or a short deadline passes, so an
    /// early error response (413, 400) is not destroyed by a reset while the client still sends.
    func lingerThenClose() {
        assertInLoop()
        guard !closed else { return }
        inFlight = false
        lingering = true
        Syscall.shutdownWrite(fd)
        setDeadline(.linger, .seconds(2))
        readAvailable()
    }

    // MARK: - Events

    func handleEvents(_ events: UInt32) {
        guard !closed else { return }
        if events & (EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 {
            // Reset, or both directions shut: nothing more can be read or delivered.
            close()
            return
        }
        if events & EPOLLOUT.rawValue != 0 {
            writable = true
            if !nothingWaiting { flush() }
            if closed { return }
        }
        if events & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue) != 0 {
            readable = true
            if events & EPOLLRDHUP.rawValue != 0 {
                peerShutdown = true
                // A stream's listener left: stop now rather than at the next heartbeat.
                if streaming {
                    close()
                    return
                }
            }
            if !inFlight { readAvailable() }
        }
    }

    // MARK: - Reading

    /// Reads while the socket may have bytes and no request is in flight (one request at a time:
    /// pipelined bytes wait in the socket until the response is written).
    func readAvailable() {
        assertInLoop()
        let buffer = loop.readBuffer
        let chunk = buffer.count
        while readable, !inFlight, !closed {
            let result = Syscall.read(fd, into: buffer)
            // Bytes that start a request in an empty parser: the request before, if they repeat it.
            var fresh = false
            if case .bytes(let count) = result, !lingering {
                let received = UnsafeRawBufferPointer(rebasing: buffer[..<count])
                if parser.phase == .idle {
                    if let request = repeated.request(repeatedBy: received) {
                        loop.noteRequestRepeated()
                        if count < chunk, !peerShutdown { readable = false }
                        dispatch(request)
                        continue
                    }
                    fresh = true
                }
                parser.append(received)
            }
            switch result {
            case .wouldBlock:
                readable = false
            case .closed:
                close()
            case .bytes(let count):
                // A short read emptied the socket; new bytes raise a new edge. After the peer's
                // FIN there is no further edge, so read on until end of stream.
                if count < chunk, !peerShutdown { readable = false }
                if !lingering { processBuffer(freshRead: fresh ? count : 0) }
            }
        }
    }

    /// Parses what is buffered: starts the next request, or waits for more bytes. `freshRead`:
    /// the length of the read just appended to an empty parser (still in the loop's read
    /// buffer), 0 otherwise; a request parsed from exactly those bytes is kept for a repeat
    /// (``RepeatedRequest``).
    func processBuffer(freshRead: Int = 0) {
        assertInLoop()
        while !inFlight, !closed, !lingering {
            let result: RequestParser.Result
            do {
                result = try parser.parse(spans: &loop.fieldSpans)
            } catch {
                fail(with: error)
                return
            }
            switch result {
            case .needMoreData:
                updateReadDeadline()
                return
            case .expectContinue:
                write(ResponseEncoder.continueHead, [], then: .none)
            case .request(let request):
                if freshRead > 0, parser.bufferedByteCount == 0 {
                    repeated.keep(request, parsedFrom: UnsafeRawBufferPointer(rebasing: loop.readBuffer[..<freshRead]))
                }
                dispatch(request)
                return
            case .rejected(let request, let error):
                dispatch(request, rejecting: error)
                return
            }
        }
    }

    /// Keeps the deadline in step with the parser's phase; each deadline runs from the phase's start.
    func updateReadDeadline() {
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
    func fail(with error: HTTPParseError) {
        assertInLoop()
        guard !closed, !inFlight, !lingering else { return }
        inFlight = true
        setDeadline(.none, nil)
        send(error.response, method: .get, version: .http1_1, keepAlive: false, requestId: RequestID.next())
    }

    // MARK: - Responding

    /// Runs the responder for `parsed`, or answers `rejection` (an error found after framing)
    /// without it; either way the connection may carry on.
    func dispatch(_ request: HTTPRequest, rejecting rejection: HTTPParseError? = nil) {
        inFlight = true
        readPhase = nil
        setDeadline(.none, nil)
        requestsServed += 1
        // The parser set the peer's address (no copy of the request here).
        let keepAlive = request.keepAlive && requestsServed < configuration.limits.maxRequestsPerConnection && !draining
        let method = request.method
        let version = request.version
        let context = RequestContext(
            requestIdentifier: RequestID.value(for: request), remoteAddress: remoteAddress, startTime: loop.wakeupInstant)
        let answer: HTTPAnswer = if let rejection { .now(rejection.response) } else { core.answer(to: request, context: context) }
        switch answer {
        case .now(let response):
            // Made now (a settled view), with no task; written after the current event batch, as
            // a task's would be: the responses of a batch's requests go out together and the loop
            // polls less often (writing each at once doubled the epoll_wait calls per request:
            // docs/PERFORMANCE.md). The connection is the job (``runOnLoop()``): no closure.
            // Moved, never copied: a copy of the response costs a reference count per field.
            readyResponse = ReadyResponse(
                response: response, method: method, version: version, keepAlive: keepAlive,
                requestId: context.requestIdentifier)
            if !loop.executeLater(self), let ready = readyResponse.take() {
                loop.execute { [self] in send(ready) }
            }
        case .later(let work):
            // The chain's after-hooks run inside `work` when it resolves; it never throws here
            // (``HTTPResponder/connectionAnswer(to:context:)``).
            Task(executorPreference: loop) { [self] in
                let response = (try? await work()) ?? HTTPError.internalError.response
                onLoop { [self] in
                    send(response, method: method, version: version, keepAlive: keepAlive, requestId: context.requestIdentifier)
                }
            }
        }
    }

    /// Sends the response made now by ``dispatch(_:rejecting:)`` (the loop runs this job after the batch).
    func runOnLoop() {
        guard let ready = readyResponse.take() else { return }
        send(ready)
    }

    func send(_ ready: ReadyResponse) {
        send(ready.response, method: ready.method, version: ready.version, keepAlive: ready.keepAlive, requestId: ready.requestId)
    }

    func send(_ response: HTTPResponse, method: HTTPMethod, version: HTTPVersion, keepAlive: Bool, requestId: RequestID.Value) {
        assertInLoop()
        guard !closed else { return }
        let keepAlive = keepAlive && !draining
        let noBody = response.status.forbidsBody
        switch response.body {
        case .bytes, .representation, .shared:
            let body = response.body.bytes ?? []
            let finished = WriteCompletion.responseFinished(keepAlive: keepAlive)
            let sendsBody = !noBody && method != .head
            // The head is written into the loop's buffer (no allocation); the socket usually takes
            // it whole, and what it does not take is copied to the queue.
            loop.withHeadBuffer { scratch in
                ResponseEncoder.withHead(
                    status: response.status, headers: response.headers, framing: noBody ? .none : .length(body.count),
                    keepAlive: keepAlive, version: version, requestId: requestId, scratch: scratch
                ) { head in
                    // Shared bytes that have earned a body file go out with sendfile.
                    if sendsBody, case .shared(let shared) = response.body, let file = shared.fileForSending() {
                        write(head, file: file, of: shared, then: finished)
                    } else {
                        write(head, sendsBody ? body : [], then: finished)
                    }
                }
            }
        case .stream(let stream):
            if noBody || method == .head {
                let head = ResponseEncoder.head(
                    status: response.status, headers: response.headers, framing: noBody ? .none : .chunked,
                    keepAlive: keepAlive, version: version, requestId: requestId
                )
                write(head, [], then: .responseFinished(keepAlive: keepAlive))
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

    func responseFinished(keepAlive: Bool) {
        assertInLoop()
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
        readAvailable()
    }
}
