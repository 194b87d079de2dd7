import CPostgres
import Glibc
import HubEngine

/// One libpq connection, used by one ``BlockingLane`` at a time (blocking calls). Dropped and
/// made again when the server goes away; until then every call throws `unavailable`. Each
/// statement ``query(_:_:)`` runs is prepared once per connection (`PQprepare`), then only
/// executed (`PQexecPrepared`): the server parses and plans it once.
final class PostgresConnection {
    private var handle: OpaquePointer?
    private let url: String
    /// No reconnect before this (a database that is down is not hammered by every request),
    /// unless another connection of the pool has connected since this one failed.
    private var nextAttempt: ContinuousClock.Instant = .now
    private let retryDelay: Duration
    /// The pool's connects this connection had seen when its last attempt began: when the
    /// pool's count moves past it, the database is back and the delay no longer holds.
    private var poolConnectsAtFailure = 0
    private let pool: PostgresPoolConnects
    /// The name of each statement prepared on the open connection, by its SQL.
    private var prepared: [String: String] = [:]

    /// `pool`: shared by the connections of one pool (a connection alone has its own).
    init(url: String, retryDelay: Duration = .milliseconds(250), pool: PostgresPoolConnects = PostgresPoolConnects()) {
        self.url = url
        self.retryDelay = retryDelay
        self.pool = pool
    }

    deinit {
        PQfinish(handle)
    }

    /// Whether a connection is open now.
    var isOpen: Bool { handle.map { PQstatus($0) == CONNECTION_OK } ?? false }

    /// The open connection, connecting now if needed (and allowed by the retry delay). An idle
    /// connection the server closed (a restart, a terminated backend) is found here, before a
    /// statement is sent on it: what it sent meanwhile is read, and a closed one is replaced.
    /// A connection whose attempt failed waits out the delay, unless another connection of its
    /// pool has connected since: the database is back, and calls it could answer do not fail.
    func connected() throws(StateError) -> OpaquePointer {
        if let handle, PQstatus(handle) == CONNECTION_OK, Self.isAlive(handle) { return handle }
        drop()
        let poolConnects = pool.count
        guard ContinuousClock.now >= nextAttempt || poolConnects != poolConnectsAtFailure else {
            throw StateError(.unavailable, "PostgreSQL is unreachable (retrying shortly)")
        }
        let made = PQconnectdb(url)
        guard let made, PQstatus(made) == CONNECTION_OK else {
            let message = made.map { Self.message(PQerrorMessage($0)) } ?? "out of memory"
            PQfinish(made)
            nextAttempt = .now + retryDelay
            // Counted before the attempt: a connect of another connection meanwhile lifts the delay.
            poolConnectsAtFailure = poolConnects
            throw StateError(.unavailable, "cannot connect to PostgreSQL: \(message)")
        }
        handle = made
        pool.noteConnect()
        return made
    }

    /// Whether an idle connection still stands: nothing to read. An idle connection of the pool
    /// hears nothing (it does not `LISTEN`) unless the server is leaving it (its shutdown's
    /// goodbye, end of file, a reset): anything readable means a new connection.
    private static func isAlive(_ handle: OpaquePointer) -> Bool {
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) == 0
    }

    /// Closes the connection (the next call reconnects).
    func drop() {
        PQfinish(handle)
        handle = nil
        prepared = [:]
    }

    /// Runs a script of several statements without parameters (the schema).
    func execute(_ script: String) throws(StateError) {
        let connection = try connected()
        let result = PQexec(connection, script)
        defer { PQclear(result) }
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let message = result.map { Self.message(PQresultErrorMessage($0)) } ?? Self.message(PQerrorMessage(connection))
            if PQstatus(connection) != CONNECTION_OK { drop() }
            throw StateError(.unavailable, "PostgreSQL: \(message)")
        }
    }

    /// Rows of a result, as text (`nil` for SQL NULL).
    typealias Rows = [[String?]]

    /// Runs `sql` (one statement that `PREPARE` accepts) with text parameters (`$1`...); returns
    /// the rows. A lost connection is dropped and reported as `unavailable`; an SQL error too
    /// (with the server's message). For a `write` (a statement that changes data), a connection
    /// lost after the statement was sent, without an error from the server, is `outcomeUnknown`:
    /// it may have been committed before its answer was lost. (An error the server sent, its
    /// shutdown included, means it was not: the statement is its own transaction.)
    @discardableResult
    func query(_ sql: String, _ parameters: [String?] = [], write: Bool = false) throws(StateError) -> Rows {
        let connection = try connected()
        let name = try statement(sql, parameterCount: parameters.count, on: connection)
        let copies: [UnsafeMutablePointer<CChar>?] = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { for copy in copies { free(copy) } }
        let result = copies.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: UnsafePointer<CChar>?.self) { values in
                PQexecPrepared(connection, name, Int32(parameters.count), values.baseAddress, nil, nil, 0)
            }
        }
        defer { PQclear(result) }
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK else {
            let message = result.map { Self.message(PQresultErrorMessage($0)) } ?? Self.message(PQerrorMessage(connection))
            // libpq's own errors (the connection lost) carry no SQLSTATE, or a class 08 one
            // (connection exception); the server's carry theirs (57P01 for its shutdown).
            let state = result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) }.map { String(cString: $0) }
            let fromServer = state.map { !$0.hasPrefix("08") } ?? false
            let lost = PQstatus(connection) != CONNECTION_OK
            if lost { drop() }
            if write, lost, !fromServer {
                throw StateError(.outcomeUnknown, "PostgreSQL: the connection was lost before the write's answer: \(message)")
            }
            throw StateError(.unavailable, "PostgreSQL: \(message)")
        }
        guard let result, status == PGRES_TUPLES_OK else { return [] }
        var rows: Rows = []
        let columns = PQnfields(result)
        for row in 0..<PQntuples(result) {
            rows.append((0..<columns).map { column in
                PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
            })
        }
        return rows
    }

    /// The name `sql` is prepared under on `connection`, preparing it the first time.
    private func statement(_ sql: String, parameterCount: Int, on connection: OpaquePointer) throws(StateError) -> String {
        if let name = prepared[sql] { return name }
        let name = "hub_\(prepared.count)"
        let result = PQprepare(connection, name, sql, Int32(parameterCount), nil)
        defer { PQclear(result) }
        guard let result, PQresultStatus(result) == PGRES_COMMAND_OK else {
            let message = result.map { Self.message(PQresultErrorMessage($0)) } ?? Self.message(PQerrorMessage(connection))
            if PQstatus(connection) != CONNECTION_OK { drop() }
            throw StateError(.unavailable, "PostgreSQL: \(message)")
        }
        prepared[sql] = name
        return name
    }

    static func message(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "unknown error" }
        // libpq's messages end with a newline (several lines for a detail): keep them on one line.
        let message = String(cString: text).split(whereSeparator: \.isNewline).joined(separator: " ")
        return message.isEmpty ? "unknown error" : message
    }
}
