@testable import HubEngine
import HubModel
import HubSync
import Testing

/// Opens (`openView`, what `GET /view?uri=` runs) that the chain memo answered are answered again
/// for the same client request without preparing the chain, only while that is the memo's
/// answer: the same definitions, every key's lifetime known and still valid, and a key that
/// does not depend on the new session's identifier.
@Suite("Recent openings answered without preparing the chain")
struct RecentOpeningsTests {
    static func request(probe: String? = nil, trace: String? = nil) -> ViewRequest {
        var headers: [(name: String, value: String)] = []
        if let probe { headers.append(("X-Probe", probe)) }
        if let trace { headers.append(("traceparent", trace)) }
        return ViewRequest(viewURI: EngineFixture.uri, headers: headers)
    }

    /// An engine with the memo on over `operations`, and the chain reports it made.
    static func engine(_ operations: [any ContentOperation]) throws -> (ViewEngine, Locked<[ChainReport]>) {
        let reports = Locked<[ChainReport]>([])
        var configuration = EngineFixture.configuration
        configuration.memoEntries = 16
        configuration.chainObserver = { report in reports.withLock { $0.append(report) } }
        return (try EngineFixture.engine(operations, configuration: configuration), reports)
    }

    /// Opens `request`: the token and state, and whether the memo answered at once.
    static func open(_ engine: ViewEngine, _ request: ViewRequest) async throws -> (token: SessionToken, state: ViewState, ready: Bool) {
        switch try engine.openView(for: request) {
        case .now(let token, let state): return (token, state, true)
        case .later(let pending):
            let (token, state) = try await pending.run()
            return (token, state, false)
        }
    }

    static func title(_ state: ViewState) -> String? { state.viewModel?.body.first?.title }

    static func memoizable(lifetime: MemoizationKeyLifetime) -> ContentOperationMock {
        let operation = ContentOperationMock.adding("a")
        operation.setMemoizationKey("k")
        operation.setMemoizationKeyLifetime(lifetime)
        return operation
    }

    @Test("keys that last until the definitions change: later opens ask no key, get the memo's view and new tokens")
    func answeredWithoutPreparing() async throws {
        let operation = Self.memoizable(lifetime: .untilDefinitionsChange)
        let (engine, reports) = try Self.engine([operation])
        let first = try await Self.open(engine, Self.request())
        #expect(!first.ready, "the first open runs the chain")
        let stored = engine.sessions.count
        let second = try await Self.open(engine, Self.request())
        #expect(second.ready, "the memo answers the second")
        let asked = operation.keyRequests
        var tokens: Set<String> = [first.token.id, second.token.id]
        for _ in 0..<3 {
            // Another trace context is the same client request.
            let later = try await Self.open(engine, Self.request(trace: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"))
            #expect(later.ready)
            #expect(Self.title(later.state) == "a #1")
            #expect(later.state.isMemoized)
            #expect(later.token.lazy, "a lazy token: nothing stored")
            tokens.insert(later.token.id)
        }
        #expect(operation.keyRequests == asked, "no key asked: answered from the recent openings")
        #expect(operation.performCount == 1)
        #expect(tokens.count == 5, "every open names a session of its own")
        #expect(engine.sessions.count == stored, "answered opens store no session")
        let hits = reports.withLock { $0.filter { $0.timings.allSatisfy(\.memoized) } }
        #expect(hits.count == 4, "each answered open is reported as a memo hit")
    }

    @Test("another client request (a header the chain sees) is prepared and remembered apart")
    func otherClientRequest() async throws {
        let operation = Self.memoizable(lifetime: .untilDefinitionsChange)
        let (engine, _) = try Self.engine([operation])
        _ = try await Self.open(engine, Self.request(probe: "1"))
        _ = try await Self.open(engine, Self.request(probe: "1"))
        let asked = operation.keyRequests
        _ = try await Self.open(engine, Self.request(probe: "2"))
        #expect(operation.keyRequests > asked, "a request with another header is prepared")
        let afterOther = operation.keyRequests
        _ = try await Self.open(engine, Self.request(probe: "1"))
        _ = try await Self.open(engine, Self.request(probe: "2"))
        #expect(operation.keyRequests == afterOther, "both are remembered now")
    }

    @Test("opening by view URI: a recognized client request is answered without making one, with its locale; another makes its own once")
    func openedWithoutARequest() async throws {
        let operation = Self.memoizable(lifetime: .untilDefinitionsChange)
        let (engine, _) = try Self.engine([operation])
        let baseline = ViewRequest(viewURI: EngineFixture.uri, headers: [("X-Probe", "1")], locale: "sv")
        _ = try await Self.open(engine, baseline)
        _ = try await Self.open(engine, baseline)  // remembered: the memo answered it
        let asked = operation.keyRequests
        var made = 0
        var compared: [String] = []
        let recognized = try engine.openView(
            viewURI: EngineFixture.uri,
            sameClient: { candidate in
                compared.append(candidate.header("X-Probe") ?? "-")
                return candidate.sameClientRequest(as: baseline)
            },
            request: {
                made += 1
                return baseline
            })
        guard case .now(let token, let state) = recognized else {
            Issue.record("a recognized request is answered at once")
            return
        }
        #expect(made == 0, "no request made for a client request the memo answered")
        #expect(compared == ["1"])
        #expect(token.locale == "sv" && token.viewURI == EngineFixture.uri && token.lazy)
        #expect(Self.title(state) == "a #1")
        #expect(operation.keyRequests == asked)

        let other = ViewRequest(viewURI: EngineFixture.uri, headers: [("X-Probe", "2")])
        let opened = try engine.openView(
            viewURI: EngineFixture.uri, sameClient: { $0.sameClientRequest(as: other) },
            request: {
                made += 1
                return other
            })
        #expect(made == 1, "an unrecognized client request is made once, and prepared")
        #expect(operation.keyRequests > asked)
        if case .now(let token, _) = opened { #expect(token.locale == nil) }
        let unknownURI = try? engine.openView(viewURI: "hub:nothing", sameClient: { _ in true }, request: { ViewRequest(viewURI: "hub:nothing") })
        #expect(unknownURI == nil, "a view URI no feature serves is never answered from another's openings")
    }

    @Test("several clients of one view: the fingerprint rules out the others without comparing them; one client alone is compared at once")
    func clientsToldApartByFingerprint() async throws {
        let operation = Self.memoizable(lifetime: .untilDefinitionsChange)
        let (engine, _) = try Self.engine([operation])
        let clients = ["1", "2", "3"].map { ViewRequest(viewURI: EngineFixture.uri, headers: [("X-Probe", $0)]) }
        // The first open runs the chain; the second is the memo's answer and is remembered.
        _ = try await Self.open(engine, clients[0])
        _ = try await Self.open(engine, clients[0])
        var fingerprints = 0
        var compared: [String] = []
        func open(_ client: ViewRequest, fingerprint: KeptFieldsFingerprint? = nil) throws -> Bool {
            let opening = try engine.openView(
                viewURI: EngineFixture.uri,
                fingerprint: {
                    fingerprints += 1
                    return fingerprint ?? KeptFieldsFingerprint(of: client)
                },
                sameClient: { candidate in
                    compared.append(candidate.header("X-Probe") ?? "-")
                    return candidate.sameClientRequest(as: client)
                },
                request: { client })
            if case .now = opening { return true }
            return false
        }
        #expect(try open(clients[0]))
        #expect(fingerprints == 0 && compared == ["1"], "one remembered client: compared, no fingerprint asked")
        for client in clients.dropFirst() { _ = try open(client) }
        let asked = operation.keyRequests
        compared = []
        fingerprints = 0
        for client in clients { #expect(try open(client), "each client's open is answered at once") }
        #expect(operation.keyRequests == asked, "from the recent openings: no key asked")
        #expect(compared == ["1", "2", "3"], "each compared only with its own remembered request")
        #expect(fingerprints == 3, "one fingerprint per open")
        // A request whose fingerprint differs from every remembered one is compared with none.
        compared = []
        var other = KeptFieldsFingerprint()
        Array("another".utf8).withUnsafeBufferPointer { other.add(value: $0) }
        #expect(try open(clients[1], fingerprint: other))
        #expect(compared.isEmpty, "ruled out by fingerprint")
        #expect(operation.keyRequests > asked, "prepared, as a client request not seen lately")
    }

    @Test("a request's fingerprint: the same fields in any order match, another value or another count does not, the trace context is left out")
    func fingerprints() {
        func fingerprint(_ headers: [(name: String, value: String)]) -> KeptFieldsFingerprint {
            KeptFieldsFingerprint(of: ViewRequest(viewURI: EngineFixture.uri, headers: headers))
        }
        let base = fingerprint([("A", "1"), ("B", "2")])
        #expect(fingerprint([("B", "2"), ("A", "1")]) == base)
        #expect(fingerprint([("A", "1"), ("B", "2"), ("traceparent", "00-ab-cd-01")]) == base)
        #expect(fingerprint([("A", "1"), ("B", "3")]) != base)
        #expect(fingerprint([("A", "1")]) != base)
        #expect(fingerprint([("A", "1"), ("B", "2"), ("C", "")]) != base)
        var added = KeptFieldsFingerprint()
        for value in ["2", "1"] { Array(value.utf8).withUnsafeBufferPointer { added.add(value: $0) } }
        #expect(added == base, "a caller adding the kept values' bytes gets the request's fingerprint")
    }

    @Test("a failed check sends the open to the chain, which runs it for the new key")
    func failedCheck() async throws {
        let valid = Locked(true)
        let operation = Self.memoizable(lifetime: .whileValid { valid.withLock { $0 } })
        let (engine, _) = try Self.engine([operation])
        _ = try await Self.open(engine, Self.request())
        #expect(try await Self.open(engine, Self.request()).ready)
        #expect(try await Self.open(engine, Self.request()).ready)
        // The source changed: its key changes and the check fails.
        operation.setMemoizationKey("k2")
        valid.withLock { $0 = false }
        let changed = try await Self.open(engine, Self.request())
        #expect(!changed.ready, "the new key is not in the memo: the chain runs")
        #expect(Self.title(changed.state) == "a #2")
        #expect(operation.performCount == 2)
    }

    @Test("an unknown lifetime (the default): every open is prepared, the memo still answers")
    func unknownLifetime() async throws {
        let operation = Self.memoizable(lifetime: .unknown)
        let (engine, _) = try Self.engine([operation])
        _ = try await Self.open(engine, Self.request())
        var asked = operation.keyRequests
        for _ in 0..<3 {
            let opened = try await Self.open(engine, Self.request())
            #expect(opened.ready)
            #expect(operation.keyRequests > asked, "prepared: the key is asked")
            asked = operation.keyRequests
        }
        #expect(operation.performCount == 1)
    }

    @Test("a reload that changes the feature: opens get the new chain's view, never the remembered one")
    func definitionsChange() async throws {
        let operation = Self.memoizable(lifetime: .untilDefinitionsChange)
        let (engine, _) = try Self.engine([operation])
        _ = try await Self.open(engine, Self.request())
        #expect(Self.title(try await Self.open(engine, Self.request()).state) == "a #1")
        let replacement = ContentOperationMock.adding("b")
        replacement.setMemoizationKey("k")
        replacement.setMemoizationKeyLifetime(.untilDefinitionsChange)
        await engine.install(
            EngineUpdate(
                features: try FeatureRegistry(features: [EngineFixture.feature([replacement])]),
                actions: try ActionRegistry(factories: []), operationDeadline: .seconds(30), componentDefaults: .standard,
                changedFeatures: [EngineFixture.featureIdentifier]))
        let after = try await Self.open(engine, Self.request())
        #expect(Self.title(after.state) == "b #1")
        #expect(Self.title(try await Self.open(engine, Self.request()).state) == "b #1")
    }

    @Test("a key that reads the session identifier is never reused for another session")
    func keyReadingSessionIdentifier() async throws {
        let operation = SessionBucketOperation()
        let (engine, _) = try Self.engine([operation])
        for _ in 0..<40 {
            let opened = try await Self.open(engine, Self.request())
            #expect(Self.title(opened.state) == SessionBucketOperation.bucket(of: opened.token.id), "the view of this session's bucket")
        }
    }
}

/// A memoizable operation whose content and key depend on the session identifier's bucket (an
/// A/B split by session): two sessions of one bucket share the memo's answer, the other bucket never.
struct SessionBucketOperation: ContentOperation {
    var name: String { "bucket" }

    static func bucket(of sessionID: String) -> String {
        (sessionID.utf8.last ?? 0) % 2 == 0 ? "even" : "odd"
    }

    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        builder.body["a"].title = Self.bucket(of: context.sessionID)
    }

    func memoizationKey(context: ContentContext) -> String? { Self.bucket(of: context.sessionID) }

    func memoizationKeyLifetime(context: ContentContext) -> MemoizationKeyLifetime { .untilDefinitionsChange }
}
