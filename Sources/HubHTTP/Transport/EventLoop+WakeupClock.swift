/// One wakeup's readings of the clocks, each made when first asked for and kept until
/// ``forget()``.
struct WakeupClock {
    private var time: UInt64?
    private var instant: ContinuousClock.Instant?

    /// ``MonotonicClock/now``, read once.
    mutating func monotonic() -> UInt64 {
        if let time { return time }
        let now = MonotonicClock.now
        time = now
        return now
    }

    /// `ContinuousClock.now`, read once.
    mutating func continuous() -> ContinuousClock.Instant {
        if let instant { return instant }
        let now = ContinuousClock.now
        instant = now
        return now
    }

    /// The next use reads the clocks again.
    mutating func forget() {
        time = nil
        instant = nil
    }
}

/// The clock as of the loop's current wakeup: the requests and deadlines of one batch of events
/// share one reading of each clock (each reading is a `clock_gettime`).
///
/// A reading is made when first asked for after the loop returns from `epoll_wait` (or, once the
/// loop stopped, before each job on its fallback queue), so it is at most the batch's processing
/// time old: a deadline set from it falls due that much early (microseconds under load, against
/// timeouts of seconds), and a request's start time is when the loop woke for it, so its
/// measured duration includes the wait behind the requests before it in the batch. Loop-confined
/// (see ``EventLoop``): call only from code running as the loop.
extension EventLoop {
    /// ``MonotonicClock/now`` as of this wakeup.
    var wakeupTime: UInt64 { wakeupClock.monotonic() }

    /// `ContinuousClock.now` as of this wakeup.
    var wakeupInstant: ContinuousClock.Instant { wakeupClock.continuous() }

    /// `wakeupTime + duration`, saturating as ``MonotonicClock/deadline(after:)``.
    func deadline(after duration: Duration) -> UInt64 {
        MonotonicClock.deadline(after: duration, from: wakeupTime)
    }

    /// Drops this wakeup's readings: the next use reads the clocks again.
    func forgetWakeupClock() { wakeupClock.forget() }
}
