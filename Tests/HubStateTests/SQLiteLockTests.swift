import Foundation
import HubEngine
import HubState
import HubTestSupport
import Testing

/// A store of this process keeps its SQLite locks when the same database is opened again in the
/// process: closing any descriptor of a file releases every POSIX lock the process holds on it,
/// so the database and its companions must never be opened and closed beside SQLite. Without
/// its lock on the shared memory (`-shm`), a store looks absent to another process, which then
/// resets the shared memory under the store's mapping (a bus error in SQLite, or a corrupt
/// database).
@Suite("SQLite state store locks")
struct SQLiteLockTests {
    /// The POSIX locks this process holds on the file at `path`, as the kernel lists them
    /// (`/proc/locks`: `N: POSIX ADVISORY READ|WRITE PID MAJ:MIN:INODE START END`).
    static func locks(on path: String) throws -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { return 0 }
        let inode = String(info.st_ino)
        let pid = String(getpid())
        let table = try String(contentsOfFile: "/proc/locks", encoding: .utf8)
        return table.split(separator: "\n").filter { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let posix = fields.firstIndex(of: "POSIX"), fields.count > posix + 4 else { return false }
            return fields[posix + 3] == pid && fields[posix + 4].split(separator: ":").last.map(String.init) == inode
        }.count
    }

    @Test("opening a database this process has open, by a second store or by PrivateFiles, keeps the first store's locks")
    func reopeningKeepsLocks() async throws {
        let path = TemporaryFiles.path("locks") + "/state.sqlite3"
        let first = try SQLiteStateStore(path: path)
        defer { first.close() }
        let key = try StateKey("list", in: .session, sessionID: "locks")
        _ = try await first.write(key, bytes: Array("[1]".utf8), shape: 1, expected: 0, expiresAt: nil, now: 0)
        let held = try Self.locks(on: path + "-shm")
        #expect(held > 0, "a store in WAL mode holds a lock on its shared memory while it is open")

        try PrivateFiles.prepareFile(path, companions: ["-wal", "-shm", "-journal"])
        #expect(try Self.locks(on: path + "-shm") == held, "narrowing the files took none of the store's locks")

        let second = try SQLiteStateStore(path: path)
        defer { second.close() }
        #expect(try Self.locks(on: path + "-shm") >= held, "a second store of the same file took none of the first's locks")
        // Both stores still read and write the one database.
        _ = try await second.write(key, bytes: Array("[1,2]".utf8), shape: 1, expected: 1, expiresAt: nil, now: 0)
        #expect(try await first.read(key, now: 0)?.bytes == Array("[1,2]".utf8))
    }

    @Test("an existing database and its companions are still narrowed to 0600, by path, and a missing companion is no error")
    func narrowingByPath() throws {
        let directory = TemporaryFiles.path("narrow")
        try PrivateFiles.createDirectory(directory)
        let path = directory + "/state.sqlite3"
        for file in [path, path + "-wal"] {
            #expect(FileManager.default.createFile(atPath: file, contents: Data(), attributes: [.posixPermissions: 0o644]))
        }
        try PrivateFiles.prepareFile(path, companions: ["-wal", "-shm"])
        for file in [path, path + "-wal"] {
            var info = stat()
            #expect(stat(file, &info) == 0 && info.st_mode & 0o777 == 0o600, "\(file)")
        }
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"), "a missing companion is not made")
        // A new file is made 0600.
        try PrivateFiles.prepareFile(directory + "/new.sqlite3")
        var info = stat()
        #expect(stat(directory + "/new.sqlite3", &info) == 0 && info.st_mode & 0o777 == 0o600)
    }
}
