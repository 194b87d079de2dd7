#if canImport(Glibc)
import Glibc
#endif

/// What runs once a write has all gone out.
enum WriteCompletion {
    case none
    /// ``Connection/responseFinished(keepAlive:)``: the response is sent, the connection reads on
    /// (or closes).
    case responseFinished(keepAlive: Bool)
}

/// Writing: responses go straight to the socket when it has room; what it does not take waits,
/// in order, for the next write edge. On the loop's thread only (see ``Connection``).
extension Connection {
    /// Sends straight away when the socket has room; what it does not take waits for the next
    /// write edge. `completion` runs once everything queued so far has been sent.
    func write(_ head: [UInt8], _ body: [UInt8], then completion: WriteCompletion) {
        head.withUnsafeBytes { write($0, body, then: completion) }
    }

    /// ``write(_:_:then:)`` of a head the caller owns: it is copied only if the socket does not
    /// take it now (it need not outlive the call).
    func write(_ head: UnsafeRawBufferPointer, _ body: [UInt8], then completion: WriteCompletion) {
        assertInLoop()
        guard !closed else { return }
        let total = head.count + body.count
        if nothingWaiting, total == 0 {
            complete(completion)
            return
        }
        if nothingWaiting, writable {
            let result = body.withUnsafeBytes { body in Syscall.send(fd, head, body) }
            switch result {
            case .closed:
                close()
                return
            case .bytes(let count) where count == total:
                complete(completion)
                return
            case .bytes(let count):
                if count < head.count {
                        out.append(contentsOf: head[count...])
                    out.append(contentsOf: body)
                } else {
                    out.append(contentsOf: body[(count - head.count)...])
                }
            case .wouldBlock:
                writable = false
                out.append(contentsOf: head)
                out.append(contentsOf: body)
            }
        } else {
            // Behind bytes already waiting (or the socket is full): queue, in order.
            out.append(contentsOf: head)
            out.append(contentsOf: body)
        }
        queue(completion)
        // Either more goes out now, or `EAGAIN` guarantees an edge when the socket has room.
        if writable { flush() } else if inFlight, deadline != .send { setDeadline(.send, configuration.timeouts.send) }
    }

    /// Nothing is queued: no bytes in `out` and no rest of a body file.
    var nothingWaiting: Bool { outOffset == out.count && pendingFile == nil }

    /// Sends `head`, then `body` from its read-only `file` (its pages through the loop's
    /// ``SplicePipe`` when the file has a ``PagePipe``, else with `sendfile`), when nothing waits
    /// and the socket has room. What of the body the socket does not take now waits as a
    /// ``PendingFileSend`` and goes from the file on the next write edges (a head it did not take
    /// whole is queued as bytes, with the body after it). `completion` runs once all of it has
    /// been sent.
    func write(_ head: UnsafeRawBufferPointer, file: BodyFile, of body: SharedBytes, then completion: WriteCompletion) {
        assertInLoop()
        guard !closed else { return }
        guard nothingWaiting, writable else {
            write(head, body.bytes, then: completion)
            return
        }
        let result = Syscall.send(fd, head, UnsafeRawBufferPointer(start: nil, count: 0), more: true)
        switch result {
        case .closed:
            close()
            return
        case .bytes(let count) where count == head.count:
            break
        case .bytes(let count):
            out.append(contentsOf: head[count...])
            out.append(contentsOf: body.bytes)
            queue(completion)
            flush()
            return
        case .wouldBlock:
            writable = false
            write(head, body.bytes, then: completion)
            return
        }
        var offset = 0
        if let pages = file.pages, let pipe = loop.splicePipe {
            switch pipe.send(from: pages.readEnd, count: file.count, to: fd) {
            case nil: break
            case .closed:
                close()
                return
            case .wouldBlock:
                writable = false
            case .bytes(let count):
                offset = count
                if offset < file.count { writable = false }
            }
        }
        if offset == file.count {
            complete(completion)
            return
        }
        // The rest goes from the file (``sendPendingFile()``): with `sendfile` while the socket has
        // room, then on the next write edges.
        pendingFile = PendingFileSend(file: file, body: body, offset: offset)
        if writable, sendPendingFile(), nothingWaiting {
            complete(completion)
            return
        }
        guard !closed else { return }
        queue(completion)
        guard pendingFile != nil else {
            flush()  // the file ended early (it cannot: nothing writes to it): its rest is queued as bytes
            return
        }
        // The socket is full (`EAGAIN`: an edge follows when it has room): the rest waits in the file.
        core.noteFileSendResumed()
        if inFlight, deadline != .send { setDeadline(.send, configuration.timeouts.send) }
    }

    /// Sends what is left of ``pendingFile`` from its file; true once all of it has gone out,
    /// false while the socket is full (its send deadline then runs from this progress) or when
    /// the connection closed.
    private func sendPendingFile() -> Bool {
        guard var pending = pendingFile else { return true }
        while !pending.isComplete {
            let left = pending.file.count - pending.offset
            switch Syscall.sendFile(fd, from: pending.file.descriptor, offset: pending.offset, count: left) {
            case .closed:
                close()
                return false
            case .wouldBlock:
                writable = false
                pendingFile = pending
                if inFlight { setDeadline(.send, configuration.timeouts.send) }
                return false
            case .bytes(0):
                // The file ended early (it cannot): the rest goes as bytes, ahead of what waits.
                out.replaceSubrange(0..<outOffset, with: pending.body.bytes[pending.offset...])
                outOffset = 0
                pendingFile = nil
                return true
            case .bytes(let count):
                pending.offset += count
            }
        }
        pendingFile = nil
        return true
    }

    /// Runs `completion` now: everything written so far has gone out.
    func complete(_ completion: WriteCompletion) {
        switch completion {
        case .none: break
        case .responseFinished(let keepAlive): responseFinished(keepAlive: keepAlive)
        }
    }

    /// Keeps `completion` for when what is queued has gone out (a closure made only here, when
    /// the socket did not take everything at once).
    func queue(_ completion: WriteCompletion) {
        guard case .responseFinished(let keepAlive) = completion else { return }
        let completion = { [unowned self] in responseFinished(keepAlive: keepAlive) }
        if let previous = afterFlush {
            afterFlush = { previous(); completion() }
        } else {
            afterFlush = completion
        }
    }

    /// Sends what is queued (the rest of a body file first, then `out`) until it is all out or
    /// the socket is full.
    func flush() {
        assertInLoop()
        guard sendPendingFile() else { return }
        while outOffset < out.count, !closed {
            let result = out.withUnsafeBytes { bytes in
                Syscall.send(fd, UnsafeRawBufferPointer(rebasing: bytes[outOffset...]), UnsafeRawBufferPointer(start: nil, count: 0))
            }
            switch result {
            case .closed:
                close()
                return
            case .wouldBlock:
                writable = false
                if outOffset > 64 * 1024 {
                    out.removeSubrange(0..<outOffset)
                    outOffset = 0
                }
                // The send deadline runs from the last progress.
                if inFlight { setDeadline(.send, configuration.timeouts.send) }
                return
            case .bytes(let count):
                outOffset += count
            }
        }
        guard !closed else { return }
        out.removeAll(keepingCapacity: out.capacity <= 256 * 1024)
        outOffset = 0
        if deadline == .send { setDeadline(.none, nil) }
        let completion = afterFlush
        afterFlush = nil
        completion?()
    }
}
