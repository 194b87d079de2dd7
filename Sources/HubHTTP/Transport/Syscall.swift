import CEpoll
#if canImport(Glibc)
import Glibc
#endif

/// Every system call the server makes, in one place. `EINTR` is retried, `errno` captured on the spot.
enum Syscall {
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        while true {
            let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if count > 0 { return .bytes(count) }
            if count == 0 { return .closed }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .closed
            }
        }
    }

    /// Sends up to two buffers with one `sendmsg` (head and body), `MSG_NOSIGNAL` so a closed
    /// peer is an error and never a SIGPIPE.
    /// With `more`, `MSG_MORE` too: the kernel holds a partial segment for what follows (a body
    /// sent by ``sendFile(_:from:offset:count:)``).
    static func send(_ fd: Int32, _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer, more: Bool = false) -> IOResult {
        var vectors = (
            iovec(iov_base: UnsafeMutableRawPointer(mutating: first.baseAddress), iov_len: first.count),
            iovec(iov_base: UnsafeMutableRawPointer(mutating: second.baseAddress), iov_len: second.count)
        )
        let vectorCount = second.isEmpty ? 1 : 2
        return withUnsafeMutableBytes(of: &vectors) { raw in
            var message = msghdr()
            message.msg_iov = raw.baseAddress?.assumingMemoryBound(to: iovec.self)
            message.msg_iovlen = vectorCount
            while true {
                let count = sendmsg(fd, &message, Int32(MSG_NOSIGNAL) | (more ? Int32(MSG_MORE) : 0))
                if count >= 0 { return .bytes(count) }
                switch errno {
                case EINTR: continue
                case EAGAIN, EWOULDBLOCK: return .wouldBlock
                default: return .closed
                }
            }
        }
    }

    /// Sends up to `count` bytes of the file `source` from `offset` with `sendfile(2)` (the
    /// kernel passes the file's pages to the socket without a copy through user memory).
    static func sendFile(_ fd: Int32, from source: Int32, offset: Int, count: Int) -> IOResult {
        var position = off_t(offset)
        while true {
            let sent = CEpoll.sendfile(fd, source, &position, count)
            if sent >= 0 { return .bytes(sent) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .closed
            }
        }
    }

    /// Creates a non-blocking, close-on-exec listening socket bound to `host:port`.
    /// Returns the descriptor and the bound port.
    static func listen(host: String, port: Int, backlog: Int32) throws(SocketError) -> (fd: Int32, port: Int) {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var info: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &info)
        guard status == 0, let first = info else { throw SocketError(call: "getaddrinfo", errno: status == EAI_SYSTEM ? errno : EINVAL) }
        defer { freeaddrinfo(info) }

        let fd = socket(first.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SocketError(call: "socket", errno: errno) }
        var one: Int32 = 1
        var zero: Int32 = 0
        do throws(SocketError) {
            guard setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
                throw SocketError(call: "setsockopt(SO_REUSEADDR)", errno: errno)
            }
            if first.pointee.ai_family == AF_INET6 {
                // "::" serves IPv4 too (dual stack).
                _ = setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &zero, socklen_t(MemoryLayout<Int32>.size))
            }
            guard bind(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
                throw SocketError(call: "bind", errno: errno)
            }
            guard Glibc.listen(fd, backlog) == 0 else { throw SocketError(call: "listen", errno: errno) }
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let named = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            guard named == 0 else { throw SocketError(call: "getsockname", errno: errno) }
            return (fd, address(of: storage).port)
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    enum AcceptResult {
        case accepted(fd: Int32, address: String?)
        case wouldBlock
        case failed(errno: Int32)
    }

    /// `accept4` with `SOCK_NONBLOCK | SOCK_CLOEXEC`; sets `TCP_NODELAY` on the new socket.
    static func accept(_ listener: Int32) -> AcceptResult {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        while true {
            let fd = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Self.accept4(listener, $0, &length, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
                }
            }
            if fd >= 0 {
                var one: Int32 = 1
                _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
                return .accepted(fd: fd, address: address(of: storage).host)
            }
            switch errno {
            case EINTR, ECONNABORTED: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .failed(errno: errno)
            }
        }
    }

    /// `accept4` is a GNU extension the Glibc module does not import; it is looked up once.
    private typealias Accept4 = @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32
    private static let accept4: Accept4 = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "accept4") else {
            fatalError("accept4 is not available")
        }
        return unsafeBitCast(symbol, to: Accept4.self)
    }()

    /// The numeric host and port of a socket address.
    static func address(of storage: sockaddr_storage) -> (host: String?, port: Int) {
        var storage = storage
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        return withUnsafePointer(to: &storage) { pointer in
            switch Int32(pointer.pointee.ss_family) {
            case AF_INET:
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                    var address = inet.pointee.sin_addr
                    let host = inet_ntop(AF_INET, &address, &text, socklen_t(text.count)).map { String(cString: $0) }
                    return (host, Int(UInt16(bigEndian: inet.pointee.sin_port)))
                }
            case AF_INET6:
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet6 in
                    var address = inet6.pointee.sin6_addr
                    let host = inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)).map { String(cString: $0) }
                    return (host, Int(UInt16(bigEndian: inet6.pointee.sin6_port)))
                }
            default:
                return (nil, 0)
            }
        }
    }

    /// Half-closes the sending side (lingering close).
    static func shutdownWrite(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// Ignores SIGPIPE process-wide (writes use MSG_NOSIGNAL too; this covers everything else).
    static func ignoreSIGPIPE() {
        _ = signal(SIGPIPE, SIG_IGN)
    }
}
