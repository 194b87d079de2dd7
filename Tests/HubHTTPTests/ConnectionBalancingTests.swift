@testable import HubHTTP
import HubTestSupport
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Which event loop takes a new connection (``HTTPServerConfiguration/Balancing``), seen from
/// a client over loopback: a synchronous handler runs on its connection's loop, so it can name
/// that loop's thread, or hold the loop up.
@Suite("Connection balancing")
struct ConnectionBalancingTests {
    /// How many loops the server runs (``HTTPServer/start()``: one per core, at least two).
    static let loopCount = max(2, ProcessInfoLite.activeProcessorCount)

    /// The loop a `/block` request holds up, by its thread's name (nil until one arrives).
    final class HeldLoop: Sendable {
        let name = Mutex<String?>(nil)
    }

    /// `/loop` answers the name of the thread it runs on (`hubhttp-loop-N`); `/block` records
    /// its loop in `held`, then holds that loop until `gate` opens.
    static func router(gate: ThreadGate = ThreadGate(), held: HeldLoop = HeldLoop()) -> Router {
        var router = Router()
        router.add(.get, "/loop", answer: { _, _ in .now(.text(currentThreadName())) })
        router.add(.get, "/block", answer: { _, _ in
            held.name.withLock { $0 = currentThreadName() }
            gate.wait()
            return .now(.text("released"))
        })
        return router
    }

    /// The calling thread's name, as `top -H` shows it (`/proc/thread-self/comm`).
    static func currentThreadName() -> String {
        let fd = open("/proc/thread-self/comm", O_RDONLY)
        guard fd >= 0 else { return "?" }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = read(fd, &bytes, bytes.count)
        return String(decoding: bytes.prefix(max(0, count)).filter { $0 != 0x0A }, as: UTF8.self)
    }

    /// A new connection's answer to `GET path`, the connection left open (keep-alive) so that
    /// the next one is a new connection beside it.
    static func ask(_ path: String, port: Int, timeout: Double = 5) throws -> (LoopbackClient, String) {
        let client = try LoopbackClient(port: port, receiveTimeout: timeout)
        try client.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.status == 200)
        return (client, response.text)
    }

    @Test("idle-first (the default): while a handler holds one loop up, every new connection is served by another")
    func idleFirstSkipsABusyLoop() async throws {
        #expect(HTTPServerConfiguration().balancing == .idleLoopFirst)
        let gate = ThreadGate()
        let held = HeldLoop()
        defer { gate.open() }
        try await withServer(testConfiguration(), responder: Self.router(gate: gate, held: held)) { server in
            let port = server.localPort
            let blocked = try LoopbackClient(port: port, receiveTimeout: 30)
            try blocked.send("GET /block HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(await eventually { held.name.withLock { $0 != nil } })
            let heldName = try #require(held.name.withLock { $0 })
            // Round-robin would deal one of every `loopCount` connections to the held loop,
            // where it would wait for the gate (and time out here).
            var open: [LoopbackClient] = []
            var names: Set<String> = []
            for _ in 0..<(Self.loopCount * 2) {
                let (client, name) = try Self.ask("/loop", port: port)
                open.append(client)
                names.insert(name)
            }
            #expect(names.allSatisfy { $0.hasPrefix("hubhttp-loop-") })
            #expect(!names.contains(heldName), "the held loop \(heldName) took a new connection")
            gate.open()
            let response = try blocked.readResponse()
            #expect(response.text == "released")
            for client in open { client.close() }
            blocked.close()
        }
    }

    @Test("round-robin: connections are dealt to the loops in turn, the same number on each")
    func roundRobinDealsInTurn() async throws {
        let configuration = testConfiguration { $0.balancing = .roundRobin }
        try await withServer(configuration, responder: Self.router()) { server in
            var open: [LoopbackClient] = []
            var counts: [String: Int] = [:]
            for _ in 0..<(Self.loopCount * 3) {
                let (client, name) = try Self.ask("/loop", port: server.localPort)
                open.append(client)
                counts[name, default: 0] += 1
            }
            #expect(counts.count == Self.loopCount)
            #expect(counts.values.allSatisfy { $0 == 3 }, "\(counts)")
            for client in open { client.close() }
        }
    }

    @Test("idle-first: an idle server answers connection after connection; shut down, its listening socket is closed")
    func idleFirstListensOnEveryLoopAndCloses() async throws {
        var port = 0
        try await withServer(testConfiguration(), responder: Self.router()) { server in
            port = server.localPort
            // Connections one after another on an idle server are served (by whichever loop
            // the kernel wakes first); each is answered.
            for _ in 0..<(Self.loopCount * 2) {
                let (client, name) = try Self.ask("/loop", port: port)
                #expect(name.hasPrefix("hubhttp-loop-"))
                client.close()
            }
        }
        // Shut down: once every loop has let the listening socket go it is closed, so the port
        // can be listened on again (a socket left open would hold it).
        #expect(await eventually(within: 10) { loopbackPortIsFree(port) })
    }
}
