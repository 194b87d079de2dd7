import Foundation

/// A throwaway PostgreSQL cluster for tests: `initdb` into a temporary directory, `pg_ctl start`
/// on a free loopback port (trust authentication, sockets in the same directory), never the
/// system service. As root it runs as the `postgres` user (PostgreSQL refuses root), via
/// `runuser`. ``stop()`` and ``start()`` let a test take the database away mid-run.
public final class PostgresCluster: Sendable {
    /// The cluster's directory (data and sockets).
    public let directory: String
    public let port: Int
    private let binaries: String

    /// The libpq connection string of the `postgres` database.
    public var url: String { "postgresql://postgres@127.0.0.1:\(port)/postgres?connect_timeout=2" }

    /// Whether the PostgreSQL server binaries are installed (Debian `postgresql`).
    public static var binariesDirectory: String? {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            let bin = "/usr/lib/postgresql/\(version)/bin"
            if FileManager.default.isExecutableFile(atPath: bin + "/initdb") { return bin }
        }
        return nil
    }

    private static let sharedCluster: Result<PostgresCluster, any Error> = Result {
        let cluster = try PostgresCluster()
        // A static is never deinitialized: stop the server when the test process exits, or every
        // test run would leave a PostgreSQL running.
        atexit { PostgresCluster.stopSharedAtExit() }
        return cluster
    }

    /// The test process's shared cluster, started on first use (tests use keys of their own);
    /// stopped and removed when the process exits.
    public static func shared() throws -> PostgresCluster { try sharedCluster.get() }

    private static func stopSharedAtExit() {
        if case .success(let cluster) = sharedCluster { cluster.destroy() }
    }

    /// Makes and starts a cluster; throws ``HarnessError`` naming what failed.
    public init() throws {
        guard let binaries = Self.binariesDirectory else {
            throw HarnessError("PostgreSQL is not installed: apt-get install postgresql (make test does)")
        }
        self.binaries = binaries
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-pg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        port = try Self.freePort()
        if getuid() == 0 { try Self.run("/bin/chown", ["postgres:postgres", directory]) }
        try Self.run(binaries + "/initdb", ["-D", directory + "/data", "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"], asPostgres: true)
        try start()
    }

    deinit {
        destroy()
    }

    /// Stops the server at once and removes the cluster's directory.
    private func destroy() {
        try? Self.run(binaries + "/pg_ctl", ["-D", directory + "/data", "-m", "immediate", "-w", "stop"], asPostgres: true)
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts the server and waits until it accepts connections.
    public func start() throws {
        let options = "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100"
        try Self.run(
            binaries + "/pg_ctl", ["-D", directory + "/data", "-o", options, "-l", directory + "/log", "-w", "-t", "60", "start"],
            asPostgres: true)
    }

    /// Stops the server (`fast`: connections are closed at once).
    public func stop() throws {
        try Self.run(binaries + "/pg_ctl", ["-D", directory + "/data", "-m", "fast", "-w", "stop"], asPostgres: true)
    }

    /// Runs SQL with psql as the `postgres` user.
    public func psql(_ sql: String) throws {
        try Self.run(binaries + "/psql", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-v", "ON_ERROR_STOP=1", "-c", sql])
    }

    /// Runs `tool` and waits for it, its output in a file (never a pipe: the server `pg_ctl
    /// start` leaves running would hold a pipe open). ``ChildProcess`` closes every other
    /// descriptor in the child, so the long-lived server holds none of the test process's pipes.
    private static func run(_ tool: String, _ arguments: [String], asPostgres: Bool = false) throws {
        let argv = asPostgres && getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--", tool] + arguments : [tool] + arguments
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("hub-pg-output-\(UUID().uuidString)").path
        let output = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw HarnessError("cannot create \(outputPath)") }
        defer {
            close(output)
            unlink(outputPath)
        }
        let process = try ChildProcess(
            executable: argv[0], arguments: Array(argv.dropFirst()), environment: ProcessInfo.processInfo.environment,
            stdout: output, stderr: output)
        process.waitUntilExit()
        guard process.exitedNormally, process.exitCode == 0 else {
            let text = FileManager.default.contents(atPath: outputPath) ?? Data()
            throw HarnessError("\((tool as NSString).lastPathComponent) failed (\(process.exitCode)): \(String(decoding: text, as: UTF8.self).suffix(600))")
        }
    }

    /// A loopback port nobody listens on now (bound, then released for PostgreSQL).
    private static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket failed") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(descriptor, pointer, length) == 0 else { return -1 }
                return getsockname(descriptor, pointer, &length)
            }
        }
        guard bound == 0 else { throw HarnessError("bind failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
