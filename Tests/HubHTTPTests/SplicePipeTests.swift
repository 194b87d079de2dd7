import CEpoll
@testable import HubHTTP
import HubTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Body files of up to 1 MiB keep their pages in a pipe (``PagePipe``) that each send tees into
/// the loop's ``SplicePipe`` and splices to the socket: the bytes are the file's, every time, and
/// what the socket does not take leaves the loop's pipe empty for the next send.
@Suite("Body files sent through pipes")
struct SplicePipeTests {
    /// Everything a file's page pipe holds, read through a pipe of the test's own (`tee`, so the
    /// page pipe keeps it).
    static func contents(of pages: PagePipe, count: Int) throws -> [UInt8] {
        var ends: [Int32] = [-1, -1]
        try #require(hub_pipe2(&ends, O_CLOEXEC) == 0)
        defer {
            close(ends[0])
            close(ends[1])
        }
        _ = fcntl(ends[1], SplicePipe.setPipeSize, Int32(count))
        try #require(hub_tee(pages.readEnd, ends[1], UInt(count), SplicePipe.nonBlocking) == count)
        var copy = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let got = copy.withUnsafeMutableBytes { read(ends[0], $0.baseAddress! + offset, count - offset) }
            try #require(got > 0)
            offset += got
        }
        return copy
    }

    /// A connected pair of non-blocking stream sockets whose sending side holds little.
    static func socketPair() throws -> (sender: Int32, receiver: Int32) {
        var pair: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        var small: Int32 = 4096
        _ = setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        _ = setsockopt(pair[1], SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        return (pair[0], pair[1])
    }

    /// Everything readable on `fd` now.
    static func drain(_ fd: Int32) -> [UInt8] {
        var all: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let got = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard got > 0 else { return all }
            all += buffer[0..<got]
        }
    }

    @Test("a body file of up to 1 MiB keeps its pages in a pipe holding exactly its bytes, read after read", arguments: [BodyFile.minBytes, 40 * 1024 + 3, 300 * 1024 + 7, SplicePipe.preferredCapacity])
    func pagePipeHoldsTheBytes(count: Int) throws {
        let bytes = SharedBodyTests.pattern(count)
        let file = try #require(BodyFile(bytes))
        let pages = try #require(file.pages)
        #expect(pages.capacity >= count)
        #expect(try Self.contents(of: pages, count: count) == bytes)
        #expect(try Self.contents(of: pages, count: count) == bytes, "tee leaves the pipe full")
    }

    @Test("a body larger than a loop's pipe takes has no page pipe (it is sent with sendfile)")
    func largerBodiesHaveNoPipe() throws {
        let file = try #require(BodyFile(SharedBodyTests.pattern(SplicePipe.preferredCapacity + 1)))
        #expect(file.pages == nil)
        #expect(PagePipe(pagesOf: file.descriptor, count: 0) == nil)
    }

    @Test("the pipe budget bounds pipes and their capacity; past it there is no pipe, and closed room is reused")
    func pipeBudget() throws {
        let bytes = SharedBodyTests.pattern(40 * 1024)
        let file = try #require(BodyFile(bytes))
        let budget = BodyFile.Budget(files: 2, bytes: 128 * 1024)
        let first = try #require(PagePipe(pagesOf: file.descriptor, count: file.count, budget: budget))
        #expect(budget.held.files == 1 && budget.held.bytes == first.capacity, "the capacity, not the bytes, is held")
        let second = try #require(PagePipe(pagesOf: file.descriptor, count: file.count, budget: budget))
        #expect(PagePipe(pagesOf: file.descriptor, count: file.count, budget: budget) == nil, "past the budget")
        #expect(budget.held.files == 2, "a refused pipe holds nothing")
        first.close(budget: budget)
        let third = try #require(PagePipe(pagesOf: file.descriptor, count: file.count, budget: budget))
        #expect(try Self.contents(of: third, count: file.count) == bytes)
        second.close(budget: budget)
        third.close(budget: budget)
        #expect(budget.held.files == 0 && budget.held.bytes == 0)
    }

    @Test("what the socket does not take is dropped from the loop's pipe: the next send starts at the first byte")
    func partialSendLeavesThePipeEmpty() throws {
        let bytes = SharedBodyTests.pattern(200 * 1024 + 5)
        let file = try #require(BodyFile(bytes))
        let pages = try #require(file.pages)
        let pipe = try #require(SplicePipe())
        let (sender, receiver) = try Self.socketPair()
        defer {
            close(sender)
            close(receiver)
        }
        for round in 0..<3 {
            let result = try #require(pipe.send(from: pages.readEnd, count: file.count, to: sender))
            guard case .bytes(let sent) = result else {
                Issue.record("round \(round): \(result), expected part of the body")
                return
            }
            #expect(sent > 0 && sent < bytes.count, "a small socket buffer takes part of it")
            let received = Self.drain(receiver)
            #expect(received == Array(bytes[0..<sent]), "round \(round): the first bytes, in order, and nothing left over from before")
        }
        #expect(pipe.send(from: pages.readEnd, count: pipe.capacity + 1, to: sender) == nil, "more than the pipe holds: not sent this way")
    }

    @Test("a closed peer is an error, and the pipe is still empty and usable afterwards")
    func closedPeer() throws {
        Syscall.ignoreSIGPIPE()  // as the server does: a closed peer is then EPIPE, not a signal
        let bytes = SharedBodyTests.pattern(64 * 1024)
        let file = try #require(BodyFile(bytes))
        let pages = try #require(file.pages)
        let pipe = try #require(SplicePipe())
        let (sender, receiver) = try Self.socketPair()
        close(receiver)
        #expect(pipe.send(from: pages.readEnd, count: file.count, to: sender) == .closed)
        close(sender)
        let (again, reader) = try Self.socketPair()
        defer {
            close(again)
            close(reader)
        }
        guard case .bytes(let sent) = try #require(pipe.send(from: pages.readEnd, count: file.count, to: again)) else {
            Issue.record("expected part of the body")
            return
        }
        #expect(Self.drain(reader) == Array(bytes[0..<sent]))
    }

    @Test("over a socket: pipelined requests for a body sent through the pipe, more than the socket takes at once, get every byte", arguments: [40 * 1024 + 11, 900 * 1024 + 11])
    func pipelinedThroughTheServer(size: Int) async throws {
        let bytes = SharedBodyTests.pattern(size)
        try await SharedBodyTests.withSharedServer(bytes) { server, representation in
            let client = try LoopbackClient(port: server.localPort)
            // 3.6 MB (or 18 MB) asked for before any is read: more than the socket takes at
            // once, so sends through the pipe are cut short (or find it full) and the rest is
            // queued as bytes.
            let count = size < 100 * 1024 ? 90 : 20
            let responses = try await blocking {
                try client.send(String(repeating: "GET /shared HTTP/1.1\r\nHost: x\r\n\r\n", count: count))
                usleep(200_000)  // reads nothing for a while: the server's sends fill the socket
                return try (0..<count).map { _ in try client.readResponse() }
            }
            #expect(responses.count == count)
            for (index, response) in responses.enumerated() {
                #expect(response.status == 200)
                #expect(response.body == bytes, "response \(index)")
            }
            #expect(representation.identity.fileForSending()?.pages != nil, "sent from a page pipe")
        }
    }
}
