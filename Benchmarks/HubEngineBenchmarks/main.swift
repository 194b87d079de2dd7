// HubEngine benchmarks: chain overhead per operation and memory per session.
// Run: make bench-engine   (swift run -c release HubEngineBenchmarks)
import Foundation
import HubEngine
import HubModel
import HubPrimitives

/// An operation that does nothing, to measure what the chain itself costs.
struct NoOperation: ContentOperation {
    let inline: Bool
    var name: String { "noop" }
    var completesSynchronously: Bool { inline }
    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {}
}

/// Static content: applies a pre-parsed document (what the `static` kind does).
struct StaticOperation: ContentOperation {
    let document: JSONValue
    var completesSynchronously: Bool { true }
    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        try builder.add(json: document)
    }
    func memoizationKey(context: ContentContext) -> String? { "static" }
}

/// A patch: sets the title of one component.
struct PatchOperation: ContentOperation {
    var completesSynchronously: Bool { true }
    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        builder.body["item-3"].title = "patched"
    }
    func memoizationKey(context: ContentContext) -> String? { "patch" }
}

/// Stands for a remote operation answered from a fresh cache entry.
struct CachedRemoteOperation: ContentOperation {
    let document: JSONValue
    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        try builder.add(json: document)
    }
    func memoizationKey(context: ContentContext) -> String? { "remote-v1" }
}

func makeItems(_ range: Range<Int>) -> JSONValue {
    .array(range.map { index in
        [
            "id": .string("item-\(index)"),
            "component": ["id": "default:card", "category": "card"],
            "text": ["title": .string("Item \(index) with a title of realistic length"), "subtitle": "A subtitle"],
            "images": ["main": ["uri": .string("https://images.example.com/\(index).jpg"), "placeholder": "album"]],
            "target": ["uri": .string("hub:item:\(index)"), "actions": ["cart:add"]],
            "custom": ["position": .int(index)],
        ]
    })
}

func microseconds(_ duration: Duration) -> Double { duration.inMilliseconds * 1000 }

func residentMemoryBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
        return kilobytes * 1024
    }
    return 0
}

func engine(operations: @escaping @Sendable () -> [any ContentOperation], memo: Int = 1024) throws -> ViewEngine {
    let feature = Feature(
        identifier: "bench", title: "Bench", predicate: .root("hub:bench"),
        operationFactories: [ClosureContentOperationFactory { _ in operations() }])
    return ViewEngine(
        features: try FeatureRegistry(features: [feature]), actions: try ActionRegistry(),
        configuration: .init(memoEntries: memo))
}

let request = ViewRequest(viewURI: "hub:bench")
let clock = ContinuousClock()

// 1. Chain overhead per operation: the marginal cost of one more operation in a chain
//    (chains of 1 and 21 no-op operations, re-run many times), and the fixed cost of a run.
func medianRunMicroseconds(operations count: Int, inline: Bool, runs: Int) async throws -> Double {
    let chain = try engine(operations: { (0..<count).map { _ in NoOperation(inline: inline) } }, memo: 0)
    let (session, _) = try await chain.openSession(for: request)
    var samples: [Double] = []
    for _ in 0..<7 {
        let start = clock.now
        for _ in 0..<runs { _ = await session.reschedule(operationAt: 0) }
        samples.append(microseconds(clock.now - start) / Double(runs))
    }
    samples.sort()
    return samples[3]
}
for inline in [true, false] {
    let runs = inline ? 4000 : 800
    let one = try await medianRunMicroseconds(operations: 1, inline: inline, runs: runs)
    let many = try await medianRunMicroseconds(operations: 21, inline: inline, runs: runs)
    let kind = inline ? "inline (completesSynchronously)" : "with deadline timer"
    print("chain overhead per operation, \(kind): \(String(format: "%.2f", (many - one) / 20)) us (a run's fixed cost: \(String(format: "%.2f", one)) us)")
}

// 2. Memory per session: 100 000 sessions of a 60-component view from a 3-operation chain.
let header: JSONValue = ["header": ["text": ["title": "Bench"]], "body": makeItems(0..<30)]
let remote: JSONValue = makeItems(30..<60)
let memoized = try engine(operations: {
    [StaticOperation(document: header), PatchOperation(), CachedRemoteOperation(document: remote)]
})
let sessionCount = 100_000
let before = residentMemoryBytes()
let start = clock.now
var sessions: [ViewSession] = []
sessions.reserveCapacity(sessionCount)
for _ in 0..<sessionCount {
    let (session, state) = try await memoized.openSession(for: request)
    precondition(state.viewModel?.body.count == 60)
    sessions.append(session)
}
let elapsed = clock.now - start
let after = residentMemoryBytes()
print("open \(sessionCount) sessions (60 components, 3 operations, memoized): \(String(format: "%.2f", microseconds(elapsed) / Double(sessionCount))) us per session")
print("memory per session: \((after - before) / sessionCount) bytes (RSS \(before / 1_048_576) MiB -> \(after / 1_048_576) MiB; store holds \(memoized.sessions.count))")

// 2b. Lazy opens (GET /view?uri= of a memoized view): nothing is stored, the token is enough.
let storedBefore = memoized.sessions.count
let lazyBefore = residentMemoryBytes()
let lazyStart = clock.now
for _ in 0..<sessionCount {
    let (_, state) = try await memoized.openSession(for: request, lazy: true)
    precondition(state.viewModel?.body.count == 60)
}
let lazyAfter = residentMemoryBytes()
print("open \(sessionCount) lazy sessions (memoized): \(String(format: "%.2f", microseconds(clock.now - lazyStart) / Double(sessionCount))) us per view, store +\(memoized.sessions.count - storedBefore), memory \(max(0, lazyAfter - lazyBefore) / sessionCount) bytes per view")

// 3. The same chain without memoization (every session builds its own view model).
let unmemoized = try engine(operations: {
    [StaticOperation(document: header), PatchOperation(), CachedRemoteOperation(document: remote)]
}, memo: 0)
let unmemoizedCount = 10_000
let before2 = residentMemoryBytes()
let start2 = clock.now
var sessions2: [ViewSession] = []
for _ in 0..<unmemoizedCount {
    let (session, _) = try await unmemoized.openSession(for: request)
    sessions2.append(session)
}
let after2 = residentMemoryBytes()
print("open \(unmemoizedCount) sessions without memo: \(String(format: "%.2f", microseconds(clock.now - start2) / Double(unmemoizedCount))) us per session, \((after2 - before2) / unmemoizedCount) bytes per session")
