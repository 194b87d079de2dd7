/// Everything the server needs to listen and to bound what clients may do.
/// The defaults are those of `Config/server.json` in DESIGN.md.
public struct HTTPServerConfiguration: Sendable {
    /// Sizes and counts; violations are answered 414, 431 or 413 and the connection closed.
    public struct Limits: Sendable, Hashable {
        /// Longest request line (method, target, version), else 414.
        public var requestLineBytes = 8192
        /// Largest header section (all field lines with their CRLFs), else 431.
        public var headerBytes = 32768
        /// Most header fields, else 431.
        public var headerCount = 100
        /// Largest request content, else 413 (as soon as Content-Length shows it).
        public var bodyBytes = 1_048_576
        /// Most open connections; past it new connections get a 503 and are closed.
        public var connections = 10_000
        /// Requests served on one connection before it is closed (`Connection: close` on the last).
        public var maxRequestsPerConnection = 10_000

        public init(
            requestLineBytes: Int = 8192, headerBytes: Int = 32768, headerCount: Int = 100,
            bodyBytes: Int = 1_048_576, connections: Int = 10_000, maxRequestsPerConnection: Int = 10_000
        ) {
            self.requestLineBytes = requestLineBytes
            self.headerBytes = headerBytes
            self.headerCount = headerCount
            self.bodyBytes = bodyBytes
            self.connections = connections
            self.maxRequestsPerConnection = maxRequestsPerConnection
        }
    }

    /// Deadlines. Each is a total, not a gap between reads.
    public struct Timeouts: Sendable, Hashable {
        /// From a request's first byte (or the connection's accept) to the end of its header section; else 408.
        public var header: Duration = .seconds(10)
        /// From the end of the header section to the end of the content; else 408.
        public var body: Duration = .seconds(30)
        /// How long a kept-alive connection may wait for the next request.
        public var idle: Duration = .seconds(60)
        /// How long a response may make no progress because the client does not read.
        public var send: Duration = .seconds(30)
        /// On shutdown, how long in-flight requests get before their connections are closed.
        public var drain: Duration = .seconds(20)
        /// On shutdown, how long an idle kept-alive connection stays open (at most `drain`): a
        /// request the client sent just as the shutdown began is still answered, with
        /// `Connection: close`, instead of being lost with a closed socket.
        public var drainIdle: Duration = .seconds(1)

        public init(
            header: Duration = .seconds(10), body: Duration = .seconds(30), idle: Duration = .seconds(60),
            send: Duration = .seconds(30), drain: Duration = .seconds(20), drainIdle: Duration = .seconds(1)
        ) {
            self.header = header
            self.body = body
            self.idle = idle
            self.send = send
            self.drain = drain
            self.drainIdle = drainIdle
        }

        /// The same, in seconds (as `server.json` writes them).
        public static func seconds(
            header: Double = 10, body: Double = 30, idle: Double = 60, send: Double = 30, drain: Double = 20,
            drainIdle: Double = 1
        ) -> Timeouts {
            Timeouts(
                header: .seconds(header), body: .seconds(body), idle: .seconds(idle), send: .seconds(send), drain: .seconds(drain),
                drainIdle: .seconds(drainIdle))
        }
    }

    /// When and how hard ``RepresentationMiddleware`` compresses.
    public struct Gzip: Sendable, Hashable {
        /// Bodies smaller than this are sent as they are.
        public var minBytes = 1024
        /// zlib level, 1 (fast) to 9 (small).
        public var level = 6

        public init(minBytes: Int = 1024, level: Int = 6) {
            self.minBytes = minBytes
            self.level = level
        }
    }

    /// Address to bind: "127.0.0.1" (the default: loopback only, as Vapor and Hummingbird
    /// default), "::1", "0.0.0.0" (every IPv4 interface), "::" (IPv6, dual-stack), ...
    public var host = "127.0.0.1"
    /// Port to bind; 0 picks a free one (read it back from ``HTTPServer/localPort``).
    public var port = 8080
    public var limits = Limits()
    public var timeouts = Timeouts()
    public var gzip = Gzip()
    /// Most bytes a streamed response may have waiting for a client that does not read; past it
    /// the connection is dropped.
    public var sseBufferBytes = 1 << 20
    /// Interval of heartbeat comments on a quiet Server-Sent Events stream.
    public var sseHeartbeat: Duration = .seconds(15)
    /// The listen backlog.
    public var backlog: Int32 = 256
    /// Which event loop a new connection goes to (it stays there until it closes).
    public var balancing = Balancing.idleLoopFirst

    /// How new connections are spread over the event loops.
    public enum Balancing: String, Sendable, Hashable, CaseIterable {
        /// A loop waiting for work accepts it (every loop watches the listening socket with
        /// `EPOLLEXCLUSIVE`, as nginx's workers do); a busy loop takes none. Light load gathers
        /// on few loops, which wake less often, and a loop held up by a slow handler strands no
        /// new client. Long-lived connections opened while the server is quiet can gather on one
        /// loop (many event-stream listeners, say); `roundRobin` spreads those evenly.
        case idleLoopFirst = "idle-first"
        /// The first loop accepts and deals the connections to the loops in turn: the same
        /// number on each, however busy each is.
        case roundRobin = "round-robin"
    }

    public init(
        host: String = "127.0.0.1", port: Int = 8080, limits: Limits = Limits(), timeouts: Timeouts = Timeouts(),
        gzip: Gzip = Gzip(), sseBufferBytes: Int = 1 << 20, sseHeartbeat: Duration = .seconds(15)
    ) {
        self.host = host
        self.port = port
        self.limits = limits
        self.timeouts = timeouts
        self.gzip = gzip
        self.sseBufferBytes = sseBufferBytes
        self.sseHeartbeat = sseHeartbeat
    }
}
