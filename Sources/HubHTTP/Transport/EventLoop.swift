import CEpoll
import Dispatch
import HubSync
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Work an object does on its loop when the loop's current turn ends (``EventLoop/executeLater(_:)``):
/// the object itself is the job, so scheduling allocates nothing.
protocol EventLoopJob: AnyObject {
    func runOnLoop()
}

/// Something registered with an ``EventLoop`` for a file descriptor's readiness events.
protocol EventLoopHandler: AnyObject {
    /// The `EPOLL*` bits that fired; called on the loop's thread.
    func handleEvents(_ events: UInt32)
}

/// One thread running an edge-triggered `epoll` loop: socket readiness, timers, and jobs (closures
/// and Swift tasks) posted to it. It is also a `TaskExecutor`: a request task that prefers it is
/// parsed, answered and written on this one thread, with no hand-off to another thread when the
/// responder does not suspend.
///
/// Jobs posted from the loop's own thread go on a thread-local queue (no lock, no wake-up); jobs
/// from other threads go on a locked queue, and the first one into an empty queue wakes the
/// loop through an `eventfd`.
///
/// `@unchecked Sendable` is safe because the mutable state is split in two: `handlers`,
/// `localJobs`, `spareJobs`, `timers`, `registered`, the head buffer's flag, the wakeup's clock
/// readings, the field spans' array and `splicePipe` are touched only on the loop's own thread
/// (every method that does so asserts it in debug builds, and the entry points for other
/// threads, ``execute(_:)`` and ``enqueue(_:)``, hand over through `remote`); `remote` is behind
/// a lock and the thread identifiers are atomic. The descriptors are immutable. Once the thread
/// has exited (it sets `stopped` under `remote`'s lock, so everything it did happens before), jobs
/// run one at a time on the serial `fallback` queue, and those never touch the loop's own state.
final class EventLoop: TaskExecutor, @unchecked Sendable {
    private enum Job {
        case closure(() -> Void)
        case task(UnownedJob)
        case object(any EventLoopJob)
    }

    private enum RemoteJob: Sendable {
        case closure(@Sendable () -> Void)
        case task(UnownedJob)
    }

    private struct Remote: Sendable {
        var jobs: [RemoteJob] = []
        var stopRequested = false
        var stopped = false
    }

    let name: String
    private let epollFD: Int32
    private let wakeFD: Int32
    private let threadID = Atomic<UInt>(0)
    /// Requests this loop's connections answered as a repeat of their request before
    /// (``RepeatedRequest``): added to by the loop only (no other core writes its line).
    let requestsRepeated = Atomic<Int>(0)
    private let remote = Locked(Remote())
    /// After the loop stopped, jobs still posted to it (a response finishing after a forced
    /// close, a task resuming) run here, one at a time, so they still never run concurrently.
    private let fallback: DispatchQueue
    /// The thread running a job on `fallback`, 0 otherwise.
    private let fallbackThreadID = Atomic<UInt>(0)

    private var handlers: [(any EventLoopHandler)?] = []
    private var registered = 0
    private var localJobs: [Job] = []
    private var spareJobs: [Job] = []
    private var timers = TimerHeap()
    /// The buffer every connection of this loop reads into (its parser copies what it keeps): one
    /// allocation for the loop's life rather than one per read. Touched only by code running as
    /// the loop (its thread, or its fallback queue once stopped: one job at a time).
    let readBuffer: UnsafeMutableRawBufferPointer
    /// The buffer a response head is written into on its way to the socket (what the socket does
    /// not take at once is copied to the connection's queue), through ``withHeadBuffer(_:)``.
    /// Loop-confined like `readBuffer`.
    private let headBuffer: UnsafeMutableBufferPointer<UInt8>
    private var headBufferInUse = false
    /// This wakeup's clock readings (``wakeupTime``, ``wakeupInstant``). Loop-confined.
    /// Exclusivity is not checked at run time (the check cost more than the clock reads it
    /// saves): each access is a short mutation on the loop's thread that calls out to nothing
    /// but the clock, so no other access to it can overlap.
    @exclusivity(unchecked) var wakeupClock = WakeupClock()
    /// The array a request head's field spans are read into (``RequestParser/parse(spans:)``),
    /// lent to one connection's parse at a time, so a connection allocates none per request and
    /// an idle one keeps none. Loop-confined like `readBuffer`; exclusivity is not checked at run
    /// time for the same reason as `wakeupClock`'s: each access is one parse call on the loop's
    /// thread, and the parser (a pure state machine) calls out to nothing that reaches the loop.
    @exclusivity(unchecked) var fieldSpans: [ReceivedFields.Span] = []
    /// The pipe body files' pages go through on their way to a socket (``SplicePipe``), made on
    /// first use; nil when the kernel refused one. Loop-confined like `readBuffer`, and empty
    /// between sends.
    private(set) lazy var splicePipe: SplicePipe? = {
        assertInLoop()
        return SplicePipe()
    }()

    /// Creates the loop's descriptors; ``start()`` runs it.
    init(name: String) throws(SocketError) {
        self.name = name
        let epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw SocketError(call: "epoll_create1", errno: errno) }
        let wakeFD = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        guard wakeFD >= 0 else {
            let error = errno
            Glibc.close(epollFD)
            throw SocketError(call: "eventfd", errno: error)
        }
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = wakeFD
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event) == 0 else {
            let error = errno
            Glibc.close(wakeFD)
            Glibc.close(epollFD)
            throw SocketError(call: "epoll_ctl", errno: error)
        }
        self.epollFD = epollFD
        self.wakeFD = wakeFD
        self.fallback = DispatchQueue(label: "\(name).stopped")
        self.readBuffer = .allocate(byteCount: 16 * 1024, alignment: 16)
        self.headBuffer = .allocate(capacity: 4 * 1024)
    }

    deinit {
        readBuffer.deallocate()
        headBuffer.deallocate()
        Glibc.close(wakeFD)
        Glibc.close(epollFD)
    }

    /// Counts a request answered as a repeat (``requestsRepeated``). As the loop only.
    func noteRequestRepeated() { requestsRepeated.add(1, ordering: .relaxed) }

    /// Runs `body` with the loop's head buffer, or with nil when it is already in use (a send
    /// nested in another, which then makes its own). As the loop only.
    func withHeadBuffer<Result>(_ body: (UnsafeMutableBufferPointer<UInt8>?) -> Result) -> Result {
        assertInLoop()
        if headBufferInUse { return body(nil) }
        headBufferInUse = true
        defer { headBufferInUse = false }
        return body(headBuffer)
    }

    /// Starts the loop's thread (detached; it holds the loop until it stops).
    func start() throws(SocketError) {
        let unmanaged = Unmanaged.passRetained(self)
        var thread = pthread_t()
        // The thread starts with every signal blocked (it inherits the mask in force here), so
        // the program's signals (SIGTERM, SIGINT) are taken by one of its own threads, where its
        // handlers or Dispatch sources expect them, and never interrupt a loop.
        var all = sigset_t()
        var previous = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_BLOCK, &all, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        let result = pthread_create(&thread, nil, { raw in
            let loop = Unmanaged<EventLoop>.fromOpaque(raw!).takeRetainedValue()
            loop.run()
            return nil
        }, unmanaged.toOpaque())
        guard result == 0 else {
            unmanaged.release()
            throw SocketError(call: "pthread_create", errno: result)
        }
        pthread_detach(thread)
    }

    /// Asks the loop to exit once nothing is registered and no job is waiting. Jobs posted
    /// afterwards run one at a time on a serial Dispatch queue, and count as ``inLoop``.
    func stop() {
        remote.withLock { $0.stopRequested = true }
        wake()
    }

    /// Whether the caller runs on this loop's thread, or, once the loop stopped, in a job the
    /// loop's serial fallback queue is running: the places where its connections' state may be touched.
    var inLoop: Bool {
        let me = pthread_self()
        return pthread_equal(me, threadID.load(ordering: .relaxed)) != 0
            || pthread_equal(me, fallbackThreadID.load(ordering: .relaxed)) != 0
    }

    /// Whether the caller runs on the loop's thread itself (where the local job queue lives).
    private var onLoopThread: Bool {
        pthread_equal(pthread_self(), threadID.load(ordering: .relaxed)) != 0
    }

    // MARK: - Jobs

    /// Runs `body` on the loop's thread: after the current event batch when called on it.
    func execute(_ body: @escaping @Sendable () -> Void) {
        if onLoopThread {
            localJobs.append(.closure(body))
        } else {
            post(.closure(body))
        }
    }

    /// Runs `job` after the current event batch when called on the loop's thread (no closure is
    /// made); false, and nothing scheduled, anywhere else (use ``execute(_:)`` there).
    func executeLater(_ job: any EventLoopJob) -> Bool {
        guard onLoopThread else { return false }
        localJobs.append(.object(job))
        return true
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if onLoopThread {
            localJobs.append(.task(job))
        } else {
            post(.task(job))
        }
    }

    private func post(_ job: RemoteJob) {
        let (wakeUp, stopped) = remote.withLock { state -> (Bool, Bool) in
            if state.stopped { return (false, true) }
            let wasEmpty = state.jobs.isEmpty
            state.jobs.append(job)
            return (wasEmpty, false)
        }
        if stopped {
            let executor = self.asUnownedTaskExecutor()
            fallback.async { [self] in
                fallbackThreadID.store(pthread_self(), ordering: .relaxed)
                defer { fallbackThreadID.store(0, ordering: .relaxed) }
                forgetWakeupClock()
                switch job {
                case .closure(let body): body()
                case .task(let task): task.runSynchronously(on: executor)
                }
            }
        } else if wakeUp {
            wake()
        }
    }

    private func wake() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeFD, &one, 8)
    }

    // MARK: - Registration and timers

    /// Watches `fd` (edge-triggered, for reading, writing and hang-ups) and delivers its events to `handler`.
    func register(_ fd: Int32, _ handler: any EventLoopHandler, events: UInt32? = nil) -> Bool {
        assertInLoop()
        var event = epoll_event()
        event.events = events ?? (EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue)
        event.data.fd = fd
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else { return false }
        let index = Int(fd)
        if index >= handlers.count {
            handlers.append(contentsOf: repeatElement(nil, count: max(index + 1 - handlers.count, handlers.count)))
        }
        if handlers[index] == nil { registered += 1 }
        handlers[index] = handler
        return true
    }

    /// Stops watching `fd`. With `closing`, the caller closes it next (which removes it from the
    /// epoll set without a syscall); otherwise it is removed explicitly.
    func deregister(_ fd: Int32, closing: Bool) {
        assertInLoop()
        if !closing { _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil) }
        let index = Int(fd)
        if index < handlers.count, handlers[index] != nil {
            handlers[index] = nil
            registered -= 1
        }
    }

    /// Runs `action` on the loop at `deadline` (``MonotonicClock`` nanoseconds) or soon after.
    func schedule(at deadline: UInt64, _ action: @escaping () -> Void) {
        assertInLoop()
        timers.schedule(at: deadline, action)
    }

    private func assertInLoop() {
        #if DEBUG
        precondition(onLoopThread, "\(name): called off the loop's thread")
        #endif
    }

    // MARK: - The loop

    private func run() {
        threadID.store(pthread_self(), ordering: .relaxed)
        hub_set_thread_name(String(name.prefix(15)))
        let capacity: Int32 = 256
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: Int(capacity))
        defer { events.deallocate() }
        while true {
            let count = epoll_wait(epollFD, events, capacity, waitTimeout())
            if count < 0, errno != EINTR {
                preconditionFailure("\(name): epoll_wait failed, errno \(errno)")
            }
            forgetWakeupClock()
            for index in 0..<max(0, Int(count)) {
                let event = events[index]
                let fd = event.data.fd
                if fd == wakeFD {
                    var value: UInt64 = 0
                    _ = Glibc.read(wakeFD, &value, 8)
                    continue
                }
                let slot = Int(fd)
                if slot < handlers.count, let handler = handlers[slot] {
                    handler.handleEvents(event.events)
                }
            }
            runDueTimers()
            if takeRemoteJobs() { break }
            runLocalJobs()
        }
        threadID.store(0, ordering: .relaxed)
    }

    /// Milliseconds epoll may sleep: 0 with jobs waiting, until the next timer, or forever.
    private func waitTimeout() -> Int32 {
        if !localJobs.isEmpty { return 0 }
        guard let earliest = timers.earliest else { return -1 }
        let now = MonotonicClock.now
        guard earliest > now else { return 0 }
        let milliseconds = (earliest - now + 999_999) / 1_000_000
        return Int32(min(milliseconds, UInt64(Int32.max)))
    }

    private func runDueTimers() {
        guard !timers.isEmpty else { return }
        let now = wakeupTime
        while let action = timers.popDue(now: now) { action() }
    }

    /// Moves the jobs posted from other threads to the local queue; returns true when the loop
    /// should exit (stop requested, nothing registered, nothing left to run).
    private func takeRemoteJobs() -> Bool {
        // Timers left are those of closed connections (no-ops), so they do not keep the loop alive.
        let idle = registered == 0 && localJobs.isEmpty
        let (jobs, exit) = remote.withLock { state -> ([RemoteJob], Bool) in
            if state.jobs.isEmpty {
                if state.stopRequested, idle {
                    state.stopped = true
                    return ([], true)
                }
                return ([], false)
            }
            let jobs = state.jobs
            state.jobs.removeAll(keepingCapacity: true)
            return (jobs, false)
        }
        for job in jobs {
            switch job {
            case .closure(let body): localJobs.append(.closure(body))
            case .task(let task): localJobs.append(.task(task))
            }
        }
        return exit
    }

    /// Runs the local jobs, and those they post, for a bounded number of rounds (the rest wait
    /// for the next turn, after the sockets have been polled).
    private func runLocalJobs() {
        var rounds = 0
        while !localJobs.isEmpty, rounds < 16 {
            rounds += 1
            swap(&localJobs, &spareJobs)
            for job in spareJobs {
                switch job {
                case .closure(let body): body()
                case .task(let task): task.runSynchronously(on: asUnownedTaskExecutor())
                case .object(let job): job.runOnLoop()
                }
            }
            spareJobs.removeAll(keepingCapacity: true)
        }
    }
}
