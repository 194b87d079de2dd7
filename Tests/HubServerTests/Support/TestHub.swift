import Foundation
import HubEngine
import HubModel
import HubServer
import HubSync
import HubTestSupport
import HubUpstream
import Testing

/// A configuration directory written into a fresh temp directory.
struct TestConfig: Sendable {
    /// Relative path -> file content.
    var files: [String: String] = [:]

    static let defaultServer = """
        { "host": "127.0.0.1", "port": 0,
          "timeouts": { "drainSeconds": 1 },
          "log": { "level": "error" } }
        """

    init(server: String = TestConfig.defaultServer) {
        files["server.json"] = server
    }

    subscript(path: String) -> String? {
        get { files[path] }
        set { files[path] = newValue }
    }

    mutating func feature(_ name: String, _ json: String) { files["features/\(name).json"] = json }

    /// Timeouts a loaded machine must never reach, set in `server.json` unless the test sets them:
    /// the operation deadline, the request head and body deadlines, and the upstream total and
    /// connect limits (2 s, 10 s, 30 s, 2 s and 0.5 s by default; a test stalled behind the
    /// whole suite on two busy cores has been seen to wait 10 s).
    static let generousTimeouts: [(section: String, key: String, value: Int)] = [
        ("timeouts", "operationSeconds", 60), ("timeouts", "headerSeconds", 60), ("timeouts", "bodySeconds", 60),
        ("upstream", "timeoutMs", 60_000), ("upstream", "connectTimeoutMs", 30_000),
    ]

    /// `server` with ``generousTimeouts`` added where it sets none; unchanged when it is not a JSON object.
    static func withGenerousTimeouts(_ server: String) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(server.utf8)) as? [String: Any] else { return server }
        var settings = object
        for (section, key, value) in generousTimeouts {
            var values = settings[section] as? [String: Any] ?? [:]
            if values[key] == nil { values[key] = value }
            settings[section] = values
        }
        guard let data = try? JSONSerialization.data(withJSONObject: settings) else { return server }
        return String(decoding: data, as: UTF8.self)
    }

    /// Writes the files into a new temporary directory and returns its path.
    func write() throws -> String {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("hub-e2e-\(UUID().uuidString)").path
        var files = files
        if let server = files["server.json"] { files["server.json"] = Self.withGenerousTimeouts(server) }
        for (path, content) in files {
            let full = (directory as NSString).appendingPathComponent(path)
            try FileManager.default.createDirectory(
                atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(content.utf8).write(to: URL(fileURLWithPath: full))
        }
        return directory
    }
}

/// The environment test servers run with: HUB_PORT and HUB_HOST unset, no config watching (an
/// inotify instance per test server would reach `fs.inotify.max_user_instances`, 128 per user,
/// with suites running in parallel; the reload tests turn watching on), and a data directory of
/// the test process's own (its generated session key is shared by every hub of the process, as
/// a restarted server's is, and never lands in the working tree).
let testEnvironment = ["HUB_CONFIG_WATCH": "0", "HUB_DATA_DIR": testDataDirectory]

/// This test process's data directory (``testEnvironment``).
let testDataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("hub-test-data-\(getpid())").path

/// How a test reaches its hub: in memory (the default: no socket, the same bytes), or over a
/// real loopback socket for what is about the transport, its limits and streams.
enum TestTransport {
    case memory, socket
}

/// Builds a `HubApplication` (``testEnvironment``), starts it on port 0 for `.socket`, runs
/// `body` with a client, and always shuts the application down and removes the directory.
@discardableResult
func withHub<T>(
    _ config: TestConfig, extensions: SwiftExtensions = SwiftExtensions(), environment: [String: String] = testEnvironment,
    transport: TestTransport = .memory, upstreamClock: UpstreamClock = .system,
    _ body: (HubClient, HubApplication) async throws -> T
) async throws -> T {
    let directory = try config.write()
    defer { try? FileManager.default.removeItem(atPath: directory) }
    return try await withHub(
        directory: directory, extensions: extensions, environment: environment, transport: transport,
        upstreamClock: upstreamClock, body)
}

@discardableResult
func withHub<T>(
    directory: String, extensions: SwiftExtensions = SwiftExtensions(), environment: [String: String] = testEnvironment,
    transport: TestTransport = .memory, upstreamClock: UpstreamClock = .system,
    _ body: (HubClient, HubApplication) async throws -> T
) async throws -> T {
    let app = try HubApplication.load(
        directory: directory, extensions: extensions, environment: environment, upstreamClock: upstreamClock)
    let client: HubClient
    switch transport {
    case .memory:
        client = HubClient(.memory(app))
    case .socket:
        try app.start()
        #expect(app.port > 0)
        client = HubClient(port: app.port)
    }
    do {
        let result = try await body(client, app)
        await app.shutdown()
        return result
    } catch {
        await app.shutdown()
        throw error
    }
}

/// A thread-safe counter for Swift operations and actions.
final class Counter: Sendable {
    private let value = Locked<Int>(0)
    @discardableResult func increment() -> Int { value.withLock { $0 += 1; return $0 } }
    var count: Int { value.withLock { $0 } }
}

/// A thread-safe list of strings (which actions ran, in order).
final class StringLog: Sendable {
    private let values = Locked<[String]>([])
    func append(_ value: String) { values.withLock { $0.append(value) } }
    var all: [String] { values.withLock { $0 } }
}

/// A Swift operation that counts its runs and shows the count (`custom.runs`, and a body row).
struct CountingOperation: ActionObservingContentOperation {
    let counter: Counter
    let observes: Set<String>

    var name: String { "counting" }

    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        let runs = counter.increment()
        builder.body.update("runs") { $0.title = "runs \(runs)" }
        builder.setCustomDataValue(.int(runs), forKey: "runs")
        builder.setCustomDataValue(.string(context.connectivity == .offline ? "offline" : "online"), forKey: "connectivity")
    }

    func actionPerformed(_ action: ObservedAction) -> Bool {
        observes.contains(action.context.actionIdentifier.identifierString)
    }
}

// MARK: - JSON helpers

extension JSONValue {
    subscript(index: Int) -> JSONValue? {
        guard let array = arrayValue, array.indices.contains(index) else { return nil }
        return array[index]
    }

    /// `body[].id` of a view.
    var bodyIDs: [String] { (self["body"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue } }

    /// The body component with `id`.
    func component(_ id: String) -> JSONValue? {
        (self["body"]?.arrayValue ?? []).first { $0["id"]?.stringValue == id }
    }
}

/// Asserts an RFC 9457 problem response with `status` and `code`; returns the problem.
@discardableResult
func expectProblem(
    _ response: LoopbackResponse, _ status: Int, _ code: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
) throws -> JSONValue {
    #expect(response.status == status, "\(response)", sourceLocation: sourceLocation)
    #expect(
        response.header("Content-Type")?.hasPrefix("application/problem+json") == true, "\(response)",
        sourceLocation: sourceLocation)
    let problem = try response.json()
    #expect(problem["type"]?.stringValue != nil, sourceLocation: sourceLocation)
    #expect(problem["title"]?.stringValue != nil, sourceLocation: sourceLocation)
    #expect(problem["status"]?.intValue == status, sourceLocation: sourceLocation)
    #expect(problem["detail"]?.stringValue != nil, sourceLocation: sourceLocation)
    if let code { #expect(problem["code"]?.stringValue == code, "\(response)", sourceLocation: sourceLocation) }
    return problem
}

