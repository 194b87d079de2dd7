// libFuzzer target: whole requests through the application, in memory. The input is raw bytes
// on a connection: HubHTTP's RequestParser parses them, and every complete request it yields
// goes through HubApplication.respond(to:) (the middleware stack, the router, the endpoints and
// the engine of the demo Config/ with the demo's Swift extensions); the response is then
// encoded as the connection would (ResponseEncoder), and a streamed body is read up to its
// first chunk. Nothing may crash or trap, and:
//   - every response head is well-formed (one header per line, no stray CR or LF),
//   - every uncompressed JSON body (application/json, application/problem+json) parses,
//   - every input finishes within `inputDeadline` (a hang is reported as a crash).
//
// Requests within one input share state as on one connection: `$S` in a later request's
// target, header values or body is replaced by the last `Hub-Session` answered, and `$E` by the
// last `ETag`, so the fuzzer can reach session paths (actions, pagination, 304, events).
// Session tokens of every kind are one token away: `$T` is the last session's token with one
// character changed (tampered), `$X` a token signed with the application's key but issued 8
// days ago (expired), `$V` a valid token for a new id (a rebuild) and `$F` a token of the same
// shape signed with another key (forged).
// Sessions persist across inputs (at most `sessions.max`, set small below).

import Dispatch
import Foundation
import HubDemo
import HubEngine
@testable import HubHTTP
import HubModel
import HubServer

/// The longest one input may take (the demo's operation deadline is 2 s; a few requests fit).
private let inputDeadline: DispatchTimeInterval = .seconds(20)
/// Requests answered per input at most (the rest of a long pipeline is ignored).
private let maxRequestsPerInput = 16
/// How long a streamed body (`GET /view/events`) is read for its first chunk.
private let streamWait: Duration = .milliseconds(200)

/// `FUZZ_APP_TRACE=1`: print each request line and the status it got (to check the seeds).
private let trace = ProcessInfo.processInfo.environment["FUZZ_APP_TRACE"] == "1"

/// `FUZZ_APP_STATS=N`: every N inputs, print the live sessions and the size of `/metrics` (to
/// tell growing state from the sanitizer's quarantine when rss climbs).
private let statsEvery = Int(ProcessInfo.processInfo.environment["FUZZ_APP_STATS"] ?? "") ?? 0
nonisolated(unsafe) private var inputs = 0  // libFuzzer calls the entry point on one thread

/// The demo application, built once: Config/ (or $FUZZ_APP_CONFIG) with small session and cache
/// caps so that memory stays flat over millions of inputs, and a logger that keeps quiet except
/// for errors that escaped the endpoints ("unhandled error"), which are worth reading.
private let application: HubApplication = {
    let directory = ProcessInfo.processInfo.environment["FUZZ_APP_CONFIG"] ?? "Config"
    let extensions = DemoExtensions.make(store: TodoStore())
    let loader = ConfigLoader(
        swiftOperationNames: Set(extensions.operations.keys), swiftActionNames: Set(extensions.actionFactories.keys),
        environment: [:])
    do {
        var configuration = try loader.load(directory: directory)
        configuration.settings.sessions.max = 64
        configuration.settings.upstream.cacheEntries = 64
        configuration.settings.sessions.keyTexts = [SessionKeys.encode(fuzzKey)]
        // The todo lists' state in a SQLite file of this run's own: on disk, not in memory.
        configuration.settings.dataDirectory = NSTemporaryDirectory() + "fuzz-app-\(getpid())"
        let logger = JSONLogger(level: .error, format: .text) { line in
            if line.contains("unhandled error") { FileHandle.standardError.write(Data(("fuzz-app: " + line + "\n").utf8)) }
        }
        return try HubApplication(configuration: configuration, extensions: extensions, logger: logger)
    } catch {
        fatalError("fuzz-app: cannot load \(directory): \(error)")
    }
}()

/// The application's session key (so the harness can sign valid and expired tokens), and another.
private let fuzzKey = SessionKeys.randomKey()
private let fuzzKeys = try! SessionKeys([fuzzKey])  // 32 random bytes: always a valid key
private let otherKeys = SessionKeys.ephemeral()

/// The parser limits of a connection of that application.
private let limits: HTTPServerConfiguration.Limits = {
    let settings = application.configuration.settings
    var limits = HTTPServerConfiguration.Limits()
    limits.requestLineBytes = settings.limits.requestLineBytes
    limits.headerBytes = settings.limits.headerBytes
    limits.headerCount = settings.limits.headerCount
    limits.bodyBytes = settings.limits.bodyBytes
    return limits
}()

@_cdecl("LLVMFuzzerInitialize")
public func fuzzAppInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    _ = application
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzApp(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    inputs += 1
    if statsEvery > 0, inputs % statsEvery == 0 {
        print("fuzz-app: \(inputs) inputs, \(application.engine.sessions.count) sessions, /metrics \(application.metricsExposition().utf8.count) bytes")
    }
    let done = DispatchSemaphore(value: 0)
    let task = Task.detached {
        await exchange(bytes)
        done.signal()
    }
    if done.wait(timeout: .now() + inputDeadline) == .timedOut {
        task.cancel()
        fatalError("fuzz-app: the input did not finish within \(inputDeadline)")
    }
    return 0
}

/// One connection's worth of bytes: parse, answer, encode, until the bytes run out, a parse
/// error (answered, then the connection would close) or a request that closes the connection.
private func exchange(_ bytes: [UInt8]) async {
    var parser = RequestParser(limits: limits)
    parser.append(bytes)
    var session: String?
    var etag: String?
    var answered = 0
    while answered < maxRequestsPerInput {
        let parsed: HTTPRequest
        do {
            switch try parser.parse() {
            case .needMoreData: return
            case .expectContinue: continue
            case .request(let request): parsed = request
            case .rejected(let request, let error):
                // Framed but invalid (a target that does not decode): answered, and the
                // connection carries on, as Connection.dispatch(_:rejecting:) does.
                answered += 1
                await encode(
                    error.response, method: request.method, version: request.version, keepAlive: request.keepAlive,
                    requestId: RequestID.value(for: request))
                guard request.keepAlive else { return }
                continue
            }
        } catch {
            await encode(error.response, method: .get, version: .http1_1, keepAlive: false, requestId: RequestID.next())
            return
        }
        answered += 1
        let request = substitute(parsed, session: session, etag: etag)
        let response = await application.respond(to: request)
        if trace {
            let body = response.body.bytes.map { String(decoding: $0.prefix(160), as: UTF8.self) } ?? "(stream)"
            print("fuzz-app: \(request.method) \(request.target) -> \(response.status.code) \(body)")
        }
        if let value = response.headers["Hub-Session"] { session = value }
        if let value = response.headers["ETag"] { etag = value }
        await encode(
            response, method: request.method, version: request.version, keepAlive: request.keepAlive,
            requestId: RequestID.value(for: request))
        guard request.keepAlive else { return }
    }
}

/// Encodes `response` as `Connection.send` does and checks the result.
private func encode(_ response: HTTPResponse, method: HTTPMethod, version: HTTPVersion, keepAlive: Bool, requestId: RequestID.Value) async {
    guard (100...599).contains(response.status.code) else { fatalError("fuzz-app: status \(response.status.code)") }
    let noBody = response.status.forbidsBody
    switch response.body {
    case .bytes, .representation, .shared:
        let body = response.body.bytes ?? []
        let head = ResponseEncoder.head(
            status: response.status, headers: response.headers, framing: noBody ? .none : .length(body.count),
            keepAlive: keepAlive, version: version, requestId: requestId)
        checkHead(head)
        if !noBody { checkJSON(body, headers: response.headers) }
    case .stream(let stream):
        let chunked = version == .http1_1
        let head = ResponseEncoder.head(
            status: response.status, headers: response.headers,
            framing: noBody ? .none : (method == .head || chunked ? .chunked : .none),
            keepAlive: keepAlive && (chunked || method == .head), version: version, requestId: requestId)
        checkHead(head)
        guard !noBody, method != .head else { return }  // the connection never reads it either
        // The first chunk (SSE: the current view) or nothing within `streamWait`; then the
        // listener goes away as a client that disconnects.
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await stream.forEachPiece { piece in
                    switch piece {
                    case .bytes(let chunk): _ = ResponseEncoder.chunk(chunk)
                    case .encoded(let event): precondition(!event.bytes.isEmpty, "fuzz-app: an empty encoded event")
                    }
                    return false
                }
            }
            group.addTask { try? await Task.sleep(for: streamWait) }
            await group.next()
            group.cancelAll()
        }
    }
}

/// A response head: the status line, `name: value` lines, one empty line; CR only before LF.
private func checkHead(_ head: [UInt8]) {
    guard head.count >= 4, head.suffix(4).elementsEqual([0x0D, 0x0A, 0x0D, 0x0A]) else { fatalError("fuzz-app: head does not end with CRLFCRLF") }
    var lines: [ArraySlice<UInt8>] = []
    var start = 0
    var index = 0
    while index < head.count {
        let byte = head[index]
        if byte == 0x0D {
            guard index + 1 < head.count, head[index + 1] == 0x0A else { fatalError("fuzz-app: bare CR in the head") }
            lines.append(head[start..<index])
            index += 2
            start = index
            continue
        }
        if byte == 0x0A || byte == 0 { fatalError("fuzz-app: bare LF or NUL in the head") }
        index += 1
    }
    guard lines.count >= 2, lines.last?.isEmpty == true, lines.first?.starts(with: Array("HTTP/1.1 ".utf8)) == true
    else { fatalError("fuzz-app: malformed head") }
    for line in lines.dropFirst().dropLast() {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else { fatalError("fuzz-app: header line without a name") }
    }
}

/// Uncompressed JSON content must be JSON.
private func checkJSON(_ body: [UInt8], headers: HTTPHeaders) {
    guard !body.isEmpty, headers["Content-Encoding"] == nil, let type = headers["Content-Type"] else { return }
    guard type.hasPrefix("application/json") || type.hasPrefix("application/problem+json") else { return }
    do {
        _ = try JSONParser(options: .init(maxDepth: 100_000)).parse(body)
    } catch {
        fatalError("fuzz-app: a \(type) body is not JSON (\(error)): \(String(decoding: body.prefix(200), as: UTF8.self))")
    }
}

/// `$S` and `$E` in the target, header values and body replaced by the last session and ETag.
private func substitute(_ request: HTTPRequest, session: String?, etag: String?) -> HTTPRequest {
    var replacements: [(token: String, value: String)] = []
    if let session {
        replacements.append(("$S", session))
        // One character changed, at a position the request's own length picks.
        var bytes = Array(session.utf8)
        let position = request.target.utf8.count % bytes.count
        bytes[position] = bytes[position] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        replacements.append(("$T", String(decoding: bytes, as: UTF8.self)))
    }
    if let etag { replacements.append(("$E", etag)) }
    let now = EngineDefaults.systemWallClock()
    replacements.append(("$X", SessionToken(id: SessionIdentifier.make(), viewURI: "hub:todo", issuedAt: now - 8 * 86_400, keys: fuzzKeys).encoded))
    replacements.append(("$V", SessionToken(id: SessionIdentifier.make(), viewURI: "hub:home", issuedAt: now, keys: fuzzKeys).encoded))
    replacements.append(("$F", SessionToken(id: SessionIdentifier.make(), viewURI: "hub:home", issuedAt: now, keys: otherKeys).encoded))
    func replace(_ string: String) -> String {
        replacements.reduce(string) { $0.replacingOccurrences(of: $1.token, with: $1.value) }
    }
    var result = request
    if request.target.contains("$") {
        let target = replace(request.target)
        if let parts = try? RequestTarget.parse(Array(target.utf8)) {
            result.target = target
            result.path = parts.path
            result.query = parts.query
        }
    }
    if request.headers.contains(where: { $0.value.contains("$") }) {
        result.headers = HTTPHeaders(request.headers.map { (name: $0.name, value: replace($0.value)) })
    }
    if request.body.contains(UInt8(ascii: "$")) {
        var body = request.body
        for (token, value) in replacements {
            body = replaceBytes(body, Array(token.utf8), Array(value.utf8))
        }
        result.body = body
    }
    return result
}

private func replaceBytes(_ bytes: [UInt8], _ token: [UInt8], _ value: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var index = 0
    while index < bytes.count {
        if bytes[index] == token[0], index + token.count <= bytes.count, bytes[index..<index + token.count].elementsEqual(token) {
            out.append(contentsOf: value)
            index += token.count
        } else {
            out.append(bytes[index])
            index += 1
        }
    }
    return out
}
