import Foundation
import HubEngine
import HubState
import HubSync
import HubTestSupport
import Testing

/// What the SQLite store leaves on disk: a write-ahead log that stays small however fast the
/// writes come, files only the server's user can read, and its size for `hub_state_bytes`.
@Suite("SQLite state store on disk")
struct SQLiteDiskTests {
    private static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    @Test("the write-ahead log stays under 64 MiB through 2,000 writes of 60 KB values, with readers beside them")
    func logStaysSmall() async throws {
        let store = try SQLiteStateStore(path: TemporaryFiles.path("state.sqlite3"))
        defer { store.close() }
        let keys = try (0..<4).map { try StateKey("list\($0)", in: .session, sessionID: "wal") }
        let peak = Locked<Int64>(0)
        let writing = Locked(true)
        // Readers ask the file all along (the store's own read lane, as views do).
        let readers = Task {
            var reads = 0
            while writing.withLock({ $0 }) {
                for key in keys { _ = try await store.read(key, now: 0) }
                reads += 1
            }
            return reads
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (offset, key) in keys.enumerated() {
                group.addTask {
                    var version: Int64 = 0
                    for round in 0..<500 {
                        let letter = Character(UnicodeScalar(UInt8(ascii: "a") + UInt8((round + offset) % 26)))
                        let value = Array("\"\(String(repeating: letter, count: 60_000))\"".utf8)
                        version = try await store.write(key, bytes: value, shape: 1, expected: version, expiresAt: nil, now: 0)
                        let size = store.logFileBytes
                        peak.withLock { $0 = max($0, size) }
                    }
                }
            }
            try await group.waitForAll()
        }
        writing.withLock { $0 = false }
        #expect(try await readers.value > 0)
        let highest = peak.withLock { $0 }
        // Past 32 MiB the write lane folds the log before the next write: one 60 KB commit over at most.
        #expect(highest < Int64(SQLiteStateStore.truncateCheckpointBytes + (1 << 20)), "the log reached \(highest) bytes")
        #expect(highest > Int64(SQLiteStateStore.passiveCheckpointBytes), "the writes made a log worth checkpointing (\(highest) bytes)")
        #expect(store.logFileBytes < 64 << 20)
        #expect(try await store.read(keys[0], now: 0)?.version == 500)
    }

    @Test("a new data directory is 0700 and the database, its log and shared memory 0600, whatever the umask allows")
    func privateFiles() async throws {
        let directory = TemporaryFiles.path("fresh") + "/data/nested"
        let path = directory + "/state.sqlite3"
        let store = try SQLiteStateStore(path: path)
        defer { store.close() }
        _ = try await store.write(try freshKey(), bytes: Array(json: "1"), shape: 1, expected: 0, expiresAt: nil, now: 0)
        #expect(Self.mode(directory) == 0o700)
        #expect(Self.mode((directory as NSString).deletingLastPathComponent) == 0o700)
        for file in [path, path + "-wal", path + "-shm"] {
            #expect(Self.mode(file) == 0o600, "\(file)")
        }
        let size = try #require(try await store.storedBytes())
        #expect(size >= 4096, "the file and its log: \(size) bytes")
    }

    @Test("an existing world-readable database is narrowed to 0600 when opened; an existing directory is left as it is")
    func existingFilesNarrowed() async throws {
        let path = TemporaryFiles.path("state.sqlite3")
        let directory = (path as NSString).deletingLastPathComponent
        chmod(directory, 0o755)
        do {
            let first = try SQLiteStateStore(path: path)
            _ = try await first.write(try freshKey(), bytes: Array(json: "1"), shape: 1, expected: 0, expiresAt: nil, now: 0)
            first.close()
        }
        chmod(path, 0o644)
        let store = try SQLiteStateStore(path: path)
        defer { store.close() }
        #expect(Self.mode(path) == 0o600)
        #expect(Self.mode(directory) == 0o755, "an operator's directory keeps its mode")
        #expect(try await store.records(withPrefix: "subject/", now: 0).count == 1, "the data is intact")
    }

    @Test("PrivateFiles: a missing path is made 0700 at every level; a file in the way is an error")
    func directories() throws {
        let base = TemporaryFiles.path("dirs")
        try PrivateFiles.createDirectory(base + "/a/b/c")
        for level in ["/a", "/a/b", "/a/b/c"] { #expect(Self.mode(base + level) == 0o700) }
        #expect(FileManager.default.createFile(atPath: base + "/file", contents: Data()))
        #expect(throws: (any Error).self) { try PrivateFiles.createDirectory(base + "/file") }
    }
}
