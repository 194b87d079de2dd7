import CSQLite
import HubEngine

/// One SQLite connection and its prepared statements. Not thread-safe: a
/// ``SQLiteStateStore`` confines it to its ``BlockingLane``.
final class SQLiteDatabase {
    private let handle: OpaquePointer
    private var statements: [String: OpaquePointer] = [:]
    /// Frames in the write-ahead log after this connection's last commit (``watchWAL()``).
    private(set) var walFrames = 0

    /// Opens (creating) the database at `path` in WAL mode. `synchronous=NORMAL`: a committed
    /// write survives the process being killed (not a power cut before the next checkpoint).
    /// `setsJournalMode`: the writer's connection switches the file to WAL (a mode the file
    /// keeps); the others only open it. `journalSizeLimit`: the bytes a log left behind by a
    /// checkpoint is cut down to when it starts over (`PRAGMA journal_size_limit`).
    init(path: String, busyTimeoutMilliseconds: Int32, setsJournalMode: Bool = true, journalSizeLimit: Int = 16 << 20) throws(StateError) {
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &opened, flags, nil)
        guard status == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(opened)
            throw StateError(.unavailable, "cannot open SQLite database '\(path)': \(message)")
        }
        handle = opened
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
        if setsJournalMode { try execute("PRAGMA journal_mode=WAL") }
        try execute("PRAGMA synchronous=NORMAL")
        try execute("PRAGMA journal_size_limit=\(journalSizeLimit)")
    }

    /// Counts the log's frames after each commit of this connection (``walFrames``), through
    /// `sqlite3_wal_hook` (which also turns SQLite's own automatic checkpoints off: the store
    /// runs them). The hook runs on the committing thread, inside the call that commits, so it
    /// touches this connection's state on its lane only.
    func watchWAL() {
        sqlite3_wal_hook(
            handle,
            { context, _, _, frames in
                guard let context else { return SQLITE_OK }
                Unmanaged<SQLiteDatabase>.fromOpaque(context).takeUnretainedValue().walFrames = Int(frames)
                return SQLITE_OK
            }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The database's page size in bytes (a log frame is this plus 24).
    func pageSize() throws(StateError) -> Int {
        var size = 4096
        try run("PRAGMA page_size", []) { row in size = Int(row.integer(0)) }
        return size
    }

    /// Runs `PRAGMA wal_checkpoint(mode)`; returns whether it completed (SQLite answered not busy)
    /// and the log's frames left unfolded.
    @discardableResult
    func checkpoint(_ mode: String) throws(StateError) -> (complete: Bool, framesLeft: Int) {
        var result = (complete: false, framesLeft: 0)
        try run("PRAGMA wal_checkpoint(\(mode))", []) { row in
            result = (row.integer(0) == 0, Int(max(0, row.integer(1) - row.integer(2))))
        }
        if result.complete, mode == "TRUNCATE" || mode == "RESTART" { walFrames = 0 }
        return result
    }

    deinit {
        sqlite3_wal_hook(handle, nil, nil)
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close(handle)
    }

    /// Runs SQL that returns no rows (schema, pragmas).
    func execute(_ sql: String) throws(StateError) {
        var message: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &message) == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? "error"
            sqlite3_free(message)
            throw StateError(.unavailable, "SQLite: \(text)")
        }
    }

    /// A value bound to a statement parameter.
    enum Parameter {
        case text(String)
        case bytes([UInt8])
        case integer(Int64)
        case null
    }

    /// Runs `sql` with `parameters`, calling `row` for each result row; returns the number of
    /// rows changed.
    @discardableResult
    func run(_ sql: String, _ parameters: [Parameter], row: (Row) throws(StateError) -> Void = { _ in }) throws(StateError) -> Int {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (offset, parameter) in parameters.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch parameter {
            case .text(let text): status = hub_sqlite3_bind_text(statement, index, text, -1)
            case .bytes(let bytes):
                status = bytes.withUnsafeBufferPointer { buffer in
                    buffer.withMemoryRebound(to: CChar.self) { characters in
                        guard let base = characters.baseAddress else { return hub_sqlite3_bind_text(statement, index, "", 0) }
                        return hub_sqlite3_bind_text(statement, index, base, Int32(characters.count))
                    }
                }
            case .integer(let value): status = sqlite3_bind_int64(statement, index, value)
            case .null: status = sqlite3_bind_null(statement, index)
            }
            guard status == SQLITE_OK else { throw failure("bind") }
        }
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW: try row(Row(statement: statement))
            case SQLITE_DONE: return Int(sqlite3_changes(handle))
            default: throw failure("step")
            }
        }
    }

    /// One result row's columns.
    struct Row {
        let statement: OpaquePointer

        func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }
        func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }
        func text(_ column: Int32) -> String {
            sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""
        }
        func bytes(_ column: Int32) -> [UInt8] {
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let base = sqlite3_column_text(statement, column) else { return [] }
            return Array(UnsafeBufferPointer(start: base, count: count))
        }
    }

    private func prepared(_ sql: String) throws(StateError) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw failure("prepare")
        }
        statements[sql] = statement
        return statement
    }

    private func failure(_ step: String) -> StateError {
        StateError(.unavailable, "SQLite \(step): \(String(cString: sqlite3_errmsg(handle)))")
    }
}
