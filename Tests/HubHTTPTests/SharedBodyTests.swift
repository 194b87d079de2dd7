@testable import HubHTTP
import HubTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Large bodies shared by many responses go out from a file of their own (``BodyFile``, with
/// `sendfile`) once sent twice: every client still gets exactly the bytes, however slowly it reads, and HEAD,
/// gzip and 304 answer as for any representation.
@Suite("Shared bodies sent from body files")
struct SharedBodyTests {
    /// `count` bytes that differ at every offset a partial send could resume from wrongly.
    static func pattern(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
    }

    /// A server answering `/shared` with one representation (what the render cache hands out),
    /// through the representation middleware.
    static func withSharedServer(_ bytes: [UInt8], _ body: (HTTPServer, Representation) async throws -> Void) async throws {
        let representation = Representation(bytes: bytes)
        var router = Router()
        router.add(.get, "/shared") { _, _ in
            HTTPResponse(status: .ok, headers: ["Content-Type": "application/json"], body: .representation(representation))
        }
        try await withServer(responder: router.wrapped(in: [RepresentationMiddleware()])) { server in
            try await body(server, representation)
        }
    }

    @Test("every response of a large shared body carries exactly its bytes, from the file once it has one")
    func sameBytesEveryTime() async throws {
        let bytes = Self.pattern(300 * 1024 + 7)
        try await Self.withSharedServer(bytes) { server, representation in
            let client = try LoopbackClient(port: server.localPort)
            let responses = try await blocking {
                try client.send(String(repeating: "GET /shared HTTP/1.1\r\nHost: x\r\n\r\n", count: 5))
                return try (0..<5).map { _ in try client.readResponse() }
            }
            for response in responses {
                #expect(response.status == 200)
                #expect(response.headers["Content-Length"] == String(bytes.count))
                #expect(response.body == bytes)
            }
            #expect(BodyFile.budget.held.files >= 1, "sent more than once: it has a file")
            #expect(representation.identity.fileForSending() != nil)
        }
    }

    @Test("pipelined requests for a body larger than the socket takes at once: every byte, in order")
    func bodyLargerThanTheSocketTakes() async throws {
        // Several megabytes queued at once: the socket takes part of each file send, the rest
        // goes out as bytes on the next write edges.
        let bytes = Self.pattern(3 * 1024 * 1024 + 13)
        try await Self.withSharedServer(bytes) { server, _ in
            let client = try LoopbackClient(port: server.localPort)
            let responses = try await blocking {
                try client.send(String(repeating: "GET /shared HTTP/1.1\r\nHost: x\r\n\r\n", count: 4) + "GET /shared HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                return try (0..<5).map { _ in try client.readResponse() }
            }
            #expect(responses.count == 5)
            for response in responses {
                #expect(response.body.count == bytes.count)
                #expect(response.body == bytes)
            }
            #expect(server.fileSendsResumed >= 1, "the rest of a file the socket did not take went from the file")
        }
    }

    @Test("a slow reader of a large shared body: the rest waits in the file, not in the connection's memory, and arrives exact")
    func slowReaderResumesFromTheFile() async throws {
        let bytes = Self.pattern(16 * 1024 * 1024 + 3)
        try await Self.withSharedServer(bytes) { server, representation in
            let client = try LoopbackClient(port: server.localPort)
            _ = representation.identity.fileForSending()  // sent once already: the next send has a file
            let before = server.fileSendsResumed
            try client.send("GET /shared HTTP/1.1\r\nHost: x\r\n\r\n")
            // The server sends while nothing reads: the socket fills and the send stops part way.
            try await Task.sleep(for: .milliseconds(200))
            let (first, second) = try await blocking {
                let first = try client.readResponse()
                try client.send("GET /shared HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                return (first, try client.readResponse())
            }
            #expect(first.status == 200 && first.body == bytes)
            #expect(second.status == 200 && second.body == bytes, "the connection reads on after a resumed send")
            #expect(server.fileSendsResumed > before, "the rest went from the file")
        }
    }

    @Test("HEAD, gzip and If-None-Match answer as for any representation")
    func headGzipAndNotModified() async throws {
        // Compressible, so gzip is chosen; large, so both encodings may get files.
        let bytes = Array(String(repeating: "{\"title\":\"row\",\"subtitle\":\"shared body\"},", count: 2000).utf8)
        try await Self.withSharedServer(bytes) { server, representation in
            let client = try LoopbackClient(port: server.localPort)
            let gzip = try #require(representation.gzip(level: 6))
            let (head, zipped, zippedAgain, identity, notModified) = try await blocking {
                try client.send("HEAD /shared HTTP/1.1\r\nHost: x\r\n\r\n")
                let head = try client.readResponse(head: true)
                let zipped = try (0..<2).map { _ in
                    try client.send("GET /shared HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n")
                    return try client.readResponse()
                }
                try client.send("GET /shared HTTP/1.1\r\nHost: x\r\n\r\n")
                let identity = try client.readResponse()
                try client.send("GET /shared HTTP/1.1\r\nHost: x\r\nIf-None-Match: \(representation.etag)\r\n\r\n")
                return (head, zipped[0], zipped[1], identity, try client.readResponse())
            }
            #expect(head.headers["Content-Length"] == String(bytes.count))
            #expect(head.body.isEmpty)
            #expect(zipped.headers["Content-Encoding"] == "gzip")
            #expect(zipped.body == gzip)
            #expect(zippedAgain.body == gzip)
            #expect(identity.body == bytes)
            #expect(notModified.status == 304)
            #expect(notModified.body.isEmpty)
        }
    }

    @Test("small bodies, and bodies sent once, get no file")
    func noFileForSmallOrSingleBodies() throws {
        #expect(BodyFile(Self.pattern(BodyFile.minBytes - 1)) == nil)
        let small = SharedBytes(Self.pattern(1024))
        #expect(small.fileForSending() == nil)
        #expect(small.fileForSending() == nil)
        let large = SharedBytes(Self.pattern(BodyFile.minBytes))
        #expect(large.fileForSending() == nil, "the first send copies")
        let file = try #require(large.fileForSending(), "the second earns a file")
        #expect(large.fileForSending() === file, "made once")
    }

    @Test("in a directory, a file is unnamed, never linkable and read-only, and holds the bytes")
    func unnamedFileInADirectory() throws {
        let bytes = Self.pattern(BodyFile.minBytes + 5)
        let file = try #require(BodyFile(bytes, directory: "/tmp"))
        #expect(file.count == bytes.count)
        #expect(Self.seals(file) == 0, "a file in a directory, not sealed memory")
        var status = stat()
        #expect(fstat(file.descriptor, &status) == 0 && status.st_nlink == 0, "no name")
        #expect(linkat(file.descriptor, "", AT_FDCWD, "/tmp/hub-body-file-test-\(getpid())", Self.emptyPath) == -1, "never linkable")
        var byte: UInt8 = 0
        #expect(pwrite(file.descriptor, &byte, 1, 0) == -1, "read-only")
        #expect(ftruncate(file.descriptor, 1) == -1, "read-only")
        #expect(Self.contents(of: file) == bytes)
    }

    @Test("without a usable directory a file is sealed memory: nothing can write to it, grow it or shrink it")
    func sealedMemoryWithoutADirectory() throws {
        let bytes = Self.pattern(BodyFile.minBytes + 5)
        for directory in [nil, "/nonexistent-hub-directory", "/proc"] as [String?] {
            let file = try #require(BodyFile(bytes, directory: directory), "\(directory ?? "memory")")
            #expect(Self.seals(file) == 0x000F, "sealed against writes, growth, shrinking and more seals")
            var byte: UInt8 = 0
            #expect(pwrite(file.descriptor, &byte, 1, 0) == -1, "write sealed")
            #expect(ftruncate(file.descriptor, 1) == -1, "shrink sealed")
            #expect(Self.contents(of: file) == bytes)
        }
    }

    @Test("a directory in memory (tmpfs) is told apart from one on disk")
    func inMemoryDirectories() {
        #expect(BodyFile.isInMemory("/dev/shm"), "tmpfs")
        #expect(!BodyFile.isInMemory("/proc"), "not tmpfs or ramfs")
        #expect(!BodyFile.isInMemory("/nonexistent-hub-directory"), "unknown: not in memory")
    }

    @Test("HUB_BODY_FILE_DIR: a disk directory is used; unset, empty, memory or a tmpfs one means sealed memory")
    func chosenDirectory() {
        #expect(BodyFile.directory(chosen: "/tmp") == (BodyFile.isInMemory("/tmp") ? nil : "/tmp"))
        #expect(BodyFile.directory(chosen: "/var") == "/var")
        for memory in [nil, "", "memory", "/dev/shm"] as [String?] {
            #expect(BodyFile.directory(chosen: memory) == nil, "\(memory ?? "unset")")
        }
        #expect(BodyFile.directory == nil, "the test process sets no HUB_BODY_FILE_DIR: memory by default")
    }

    /// `F_GET_SEALS` (`F_LINUX_SPECIFIC_BASE + 10`): the seals of a memory file, -1 for a file
    /// that cannot have any (read as 0).
    private static func seals(_ file: BodyFile) -> Int32 {
        let seals = fcntl(file.descriptor, 1024 + 10)
        return seals < 0 ? 0 : seals
    }
    /// `AT_EMPTY_PATH` (Glibc declares it only under `_GNU_SOURCE`).
    private static let emptyPath: Int32 = 0x1000

    private static func contents(of file: BodyFile) -> [UInt8] {
        var copy = [UInt8](repeating: 0, count: file.count)
        let read = pread(file.descriptor, &copy, copy.count, 0)
        return read == file.count ? copy : []
    }

    @Test("the budget bounds files and bytes; past it bodies are sent by copy, and released room is reused")
    func budget() {
        let budget = BodyFile.Budget(files: 2, bytes: 100)
        #expect(budget.reserve(bytes: 60))
        #expect(!budget.reserve(bytes: 60), "past the bytes")
        #expect(budget.reserve(bytes: 30))
        #expect(!budget.reserve(bytes: 1), "past the files")
        #expect(budget.held.files == 2 && budget.held.bytes == 90, "a refused reservation holds nothing")
        budget.release(bytes: 60)
        #expect(budget.reserve(bytes: 70))
        #expect(budget.held.files == 2 && budget.held.bytes == 100)
    }
}
