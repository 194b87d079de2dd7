/// Header, body, idle, send and linger deadlines of a ``Connection`` on its loop's timer heap.
extension Connection {
    // MARK: - Deadlines

    /// Sets the current deadline. A timer is armed only when the new deadline is earlier than the
    /// one already armed; a timer that fires early re-arms itself for the current deadline.
    func setDeadline(_ kind: Deadline, _ duration: Duration?) {
        deadline = kind
        guard let duration, kind != .none else {
            deadlineAt = .max
            return
        }
        deadlineAt = loop.deadline(after: duration)
        if deadlineAt < timerFiresAt { armTimer(at: deadlineAt) }
    }

    func armTimer(at instant: UInt64) {
        timerFiresAt = instant
        loop.schedule(at: instant) { [self] in deadlineFired(armedFor: instant) }
    }

    func deadlineFired(armedFor instant: UInt64) {
        assertInLoop()
        // A timer superseded by an earlier one has nothing to do.
        guard instant == timerFiresAt else { return }
        timerFiresAt = .max
        guard !closed, deadline != .none else { return }
        if MonotonicClock.now < deadlineAt {
            if deadlineAt != .max { armTimer(at: deadlineAt) }
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
