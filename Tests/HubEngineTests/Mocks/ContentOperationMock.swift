import HubEngine
import HubModel
import HubSync

/// An error with a code, for asserting which error flowed where.
struct TestError: Error, Equatable, Sendable, CustomStringConvertible {
    let code: Int
    var description: String { "TestError(\(code))" }
}

extension Optional where Wrapped == any Error {
    /// The wrapped error as a ``TestError``, when it is one.
    var testError: TestError? { self as? TestError }
}

/// One call of an operation, as the operation saw it.
struct OperationCall: Sendable {
    /// The builder the operation received, before it changed anything.
    let input: ViewModelBuilder
    /// The builder the operation left (after its body ran; also recorded when it threw).
    let output: ViewModelBuilder?
    let context: ContentContext
    /// 1 for the first call, 2 for the second...
    let number: Int

    var previousError: (any Error)? { context.previousError }
    var inputBodyIdentifiers: [String] { input.body.identifiers }
}

/// A recording content operation driven by a closure. Thread-safe: the state lives in a
/// lock (``Locked``), so tests read it while sessions run on other executors.
///
/// `body` gets the builder, the context and the 1-based number of this perform. After the
/// body, the mock throws the error set with ``setError(_:)`` (if any).
final class ContentOperationMock: ContentOperation {
    typealias Body = @Sendable (inout ViewModelBuilder, ContentContext, Int) async throws -> Void

    private struct State {
        var calls: [OperationCall] = []
        var error: (any Error)?
        var memoizationKey: String?
        var memoizationKeyLifetime: MemoizationKeyLifetime = .unknown
        var keyRequests = 0
    }

    let name: String
    let completesSynchronously: Bool
    private let body: Body
    private let state = Locked(State())

    init(name: String = "mock", synchronous: Bool = false, body: @escaping Body = { _, _, _ in }) {
        self.name = name
        self.completesSynchronously = synchronous
        self.body = body
    }

    /// A mock that adds (or updates) the body component `identifier` with the perform number
    /// as its title, so every run changes the view model.
    static func adding(_ identifier: String, name: String? = nil) -> ContentOperationMock {
        ContentOperationMock(name: name ?? identifier) { builder, _, number in
            builder.body[identifier].title = "\(identifier) #\(number)"
        }
    }

    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        let input = builder
        let number = state.withLock { $0.calls.count + 1 }
        // Record the call before running the body, so gated bodies are visible while waiting.
        state.withLock { $0.calls.append(OperationCall(input: input, output: nil, context: context, number: number)) }
        do {
            try await body(&builder, context, number)
        } catch {
            record(output: builder, number: number)
            throw error
        }
        record(output: builder, number: number)
        if let error = state.withLock({ $0.error }) { throw error }
    }

    private func record(output: ViewModelBuilder, number: Int) {
        state.withLock { state in
            guard let index = state.calls.lastIndex(where: { $0.number == number }) else { return }
            let call = state.calls[index]
            state.calls[index] = OperationCall(input: call.input, output: output, context: call.context, number: number)
        }
    }

    func memoizationKey(context: ContentContext) -> String? {
        state.withLock { state in
            state.keyRequests += 1
            return state.memoizationKey
        }
    }

    /// How many times the engine asked for the memo key.
    var keyRequests: Int { state.withLock { $0.keyRequests } }

    // MARK: - Configuration

    /// The error every following perform throws (after its body); `nil` stops failing.
    func setError(_ error: (any Error)?) {
        state.withLock { $0.error = error }
    }

    func setMemoizationKey(_ key: String?) {
        state.withLock { $0.memoizationKey = key }
    }

    func memoizationKeyLifetime(context: ContentContext) -> MemoizationKeyLifetime {
        state.withLock { $0.memoizationKeyLifetime }
    }

    /// What the key's lifetime answers from now on (``MemoizationKeyLifetime/unknown`` at first).
    func setMemoizationKeyLifetime(_ lifetime: MemoizationKeyLifetime) {
        state.withLock { $0.memoizationKeyLifetime = lifetime }
    }

    // MARK: - Recordings

    var performCount: Int { state.withLock { $0.calls.count } }
    var calls: [OperationCall] { state.withLock { $0.calls } }
    var lastCall: OperationCall? { calls.last }
    var previousErrors: [(any Error)?] { calls.map(\.previousError) }
    var connectivities: [Connectivity] { calls.map(\.context.connectivity) }
    var featureInfos: [FeatureInfo] { calls.map(\.context.feature) }
    var pageIndexes: [Int] { calls.map(\.context.pageIndex) }
}

/// A mock that also provides initial content (S116); counts how often it was asked.
final class InitialContentOperationMock: ContentOperationWithInitialContent {
    let mock: ContentOperationMock
    private let initial: @Sendable (inout ViewModelBuilder) -> Void
    private let initialRequests = Locked(0)

    init(_ mock: ContentOperationMock, initial: @escaping @Sendable (inout ViewModelBuilder) -> Void) {
        self.mock = mock
        self.initial = initial
    }

    var name: String { mock.name }
    var completesSynchronously: Bool { mock.completesSynchronously }

    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        try await mock.perform(builder: &builder, context: context)
    }

    func addInitialContent(to builder: inout ViewModelBuilder, context: InitialContentContext) {
        initialRequests.withLock { $0 += 1 }
        initial(&builder)
    }

    var initialContentRequestCount: Int { initialRequests.withLock { $0 } }
}

/// A mock with paginated content (S119..S126): `page` runs for every following page and is
/// recorded like main runs (in ``pageCalls``).
final class PaginatedOperationMock: ContentOperationWithPaginatedContent {
    typealias PageBody = @Sendable (inout ViewModelBuilder, ContentContext, Int) async throws -> Void

    let mock: ContentOperationMock
    private let pageBody: PageBody
    private let pages = Locked<[OperationCall]>([])
    private let pageError = Locked<(any Error)?>(nil)

    /// `page` gets the builder, the context and the page index.
    init(_ mock: ContentOperationMock, page: @escaping PageBody) {
        self.mock = mock
        self.pageBody = page
    }

    /// A paginated op that adds `<prefix>-<pageIndex>` in main mode and `<prefix>-<page>` per page.
    static func appending(_ prefix: String) -> PaginatedOperationMock {
        PaginatedOperationMock(
            ContentOperationMock(name: prefix) { builder, context, _ in
                builder.body["\(prefix)-\(context.pageIndex)"].title = prefix
            },
            page: { builder, _, page in builder.body["\(prefix)-\(page)"].title = prefix })
    }

    var name: String { mock.name }

    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        try await mock.perform(builder: &builder, context: context)
    }

    func appendContent(forPage pageIndex: Int, builder: inout ViewModelBuilder, context: ContentContext) async throws {
        let number = pages.withLock { pages in
            pages.append(OperationCall(input: builder, output: nil, context: context, number: pages.count + 1))
            return pages.count
        }
        try await pageBody(&builder, context, pageIndex)
        _ = number
        if let error = pageError.withLock({ $0 }) { throw error }
    }

    /// The error every following page run throws.
    func setPageError(_ error: (any Error)?) {
        pageError.withLock { $0 = error }
    }

    var pageCalls: [OperationCall] { pages.withLock { $0 } }
    var pageIndexes: [Int] { pageCalls.map(\.context.pageIndex) }
}

/// A mock that observes actions (S128); `reschedule` decides whether it asks to be re-run.
final class ActionObservingOperationMock: ActionObservingContentOperation {
    let mock: ContentOperationMock
    private let reschedule: @Sendable (ObservedAction) -> Bool
    private let observed = Locked<[ObservedAction]>([])

    init(_ mock: ContentOperationMock, reschedule: @escaping @Sendable (ObservedAction) -> Bool = { _ in false }) {
        self.mock = mock
        self.reschedule = reschedule
    }

    var name: String { mock.name }

    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        try await mock.perform(builder: &builder, context: context)
    }

    func actionPerformed(_ action: ObservedAction) -> Bool {
        observed.withLock { $0.append(action) }
        return reschedule(action)
    }

    var observedActions: [ObservedAction] { observed.withLock { $0 } }
}
