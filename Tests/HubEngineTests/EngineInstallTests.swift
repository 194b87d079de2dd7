@testable import HubEngine
import HubModel
import Testing

/// `ViewEngine.install`: what a config reload does to features, the chain memo and live sessions.
@Suite("Installing new definitions")
struct EngineInstallTests {
    static func titles(_ state: ViewState) -> [String] {
        state.viewModel?.body.compactMap(\.title) ?? []
    }

    static func update(_ features: [Feature], changed: Set<String>) throws -> EngineUpdate {
        EngineUpdate(
            features: try FeatureRegistry(features: features), actions: try ActionRegistry(factories: []),
            operationDeadline: .seconds(30), componentDefaults: .standard, changedFeatures: changed)
    }

    @Test("listened sessions of a changed feature re-run at once from operation 0 and notify listeners; others on next use")
    func changedFeatureReruns() async throws {
        let engine = try EngineFixture.engine(features: [
            EngineFixture.feature([ContentOperationMock.adding("old")], identifier: "page"),
            EngineFixture.feature([ContentOperationMock.adding("kept")], identifier: "other", predicate: .root("hub:other")),
        ])
        let (page, first) = try await engine.openSession(for: EngineFixture.request())
        let (other, otherFirst) = try await engine.openSession(for: EngineFixture.request(uri: "hub:other"))
        #expect(Self.titles(first) == ["old #1"])
        var updates = await page.updates().makeAsyncIterator()
        _ = await updates.next()  // the current view

        let report = await engine.install(try Self.update(
            [EngineFixture.feature([ContentOperationMock.adding("new")], identifier: "page"),
             EngineFixture.feature([ContentOperationMock.adding("kept")], identifier: "other", predicate: .root("hub:other"))],
            changed: ["page"]))
        #expect(report.changed == ["page"])
        #expect(report.sessionsRerun == 1, "the listened session re-runs now")
        #expect(report.sessionsUntouched == 1)
        let pushed = try #require(await updates.next())
        #expect(Self.titles(pushed) == ["new #1"])
        #expect(await page.operationNames == ["new"])
        // The unchanged feature's session kept its view and version.
        #expect(await other.state.version == otherFirst.version)
        #expect(Self.titles(await other.state) == ["kept #1"])
    }

    @Test("work under way finishes on the old definition; the new one runs after it")
    func inFlightFinishesOnOldDefinition() async throws {
        let gate = TaskGate()
        let gated = ContentOperationMock(name: "old") { builder, _, number in
            if number > 1 { await gate.pass() }
            builder.body["old"].title = "old #\(number)"
        }
        let engine = try EngineFixture.engine(features: [EngineFixture.feature([gated], identifier: "page")])
        let (session, _) = try await engine.openSession(for: EngineFixture.request())
        let reloading = Task { await session.reload() }
        await gate.arrivals(1)  // the second run of the old operation is under way
        await engine.install(try Self.update(
            [EngineFixture.feature([ContentOperationMock.adding("new")], identifier: "page")], changed: ["page"]))
        gate.open()
        _ = await reloading.value
        // No listener: the session is stale and re-runs on its next use.
        let settled = await session.reload()
        #expect(Self.titles(settled) == ["new #1"])
        #expect(gated.calls.count == 2, "the old operation ran to its end, once more")
    }

    @Test("a removed feature ends its sessions: listeners finish, the token no longer rebuilds")
    func removedFeatureEndsSessions() async throws {
        let engine = try EngineFixture.engine(features: [
            EngineFixture.feature([ContentOperationMock.adding("page")], identifier: "page"),
            EngineFixture.feature([ContentOperationMock.adding("other")], identifier: "other", predicate: .root("hub:other")),
        ])
        let (session, _) = try await engine.openSession(for: EngineFixture.request())
        var updates = await session.updates().makeAsyncIterator()
        _ = await updates.next()
        let report = await engine.install(try Self.update(
            [EngineFixture.feature([ContentOperationMock.adding("other")], identifier: "other", predicate: .root("hub:other"))],
            changed: []))
        #expect(report.removed == ["page"])
        #expect(report.sessionsEnded == 1)
        #expect(await updates.next() == nil)
        #expect(await session.endReason == .featureRemoved)
        #expect(engine.session(session.id) == nil)
        #expect(try await engine.resolve(session.token) { EngineFixture.request(uri: $0) } == nil)
    }

    @Test("the chain memo forgets a changed feature and keeps an unchanged one")
    func memoForgetsChangedFeatures() async throws {
        var configuration = EngineFixture.configuration
        configuration.memoEntries = 16
        func memoizable(_ title: String) -> ContentOperationMock {
            let operation = ContentOperationMock(name: title) { builder, _, _ in builder.body["c"].title = title }
            operation.setMemoizationKey(title)
            return operation
        }
        let kept = memoizable("kept")
        let engine = try EngineFixture.engine(
            features: [
                EngineFixture.feature([memoizable("before")], identifier: "page"),
                EngineFixture.feature([kept], identifier: "other", predicate: .root("hub:other")),
            ],
            configuration: configuration)
        #expect(Self.titles(try await engine.loadView(for: EngineFixture.request())) == ["before"])
        _ = try await engine.loadView(for: EngineFixture.request(uri: "hub:other"))
        #expect(engine.memoUsage.entries == 2)
        await engine.install(try Self.update(
            [EngineFixture.feature([memoizable("after")], identifier: "page"),
             EngineFixture.feature([kept], identifier: "other", predicate: .root("hub:other"))],
            changed: ["page"]))
        #expect(engine.memoUsage.entries == 1)
        #expect(Self.titles(try await engine.loadView(for: EngineFixture.request())) == ["after"])
        _ = try await engine.loadView(for: EngineFixture.request(uri: "hub:other"))
        #expect(kept.calls.count == 1, "the unchanged feature's memoized chain still answers")
    }

    @Test("actions are replaced for every session, changed feature or not")
    func actionsReplaced() async throws {
        let engine = try EngineFixture.engine([ContentOperationMock.adding("a")])
        #expect(!engine.actions.hasNamespace("late"))
        let feature = EngineFixture.feature([ContentOperationMock.adding("a")])
        let update = EngineUpdate(
            features: try FeatureRegistry(features: [feature]),
            actions: try ActionRegistry(factories: [("late", ClosureActionFactory([:]))]),
            operationDeadline: .seconds(30), componentDefaults: .standard, changedFeatures: [])
        let report = await engine.install(update)
        #expect(engine.actions.hasNamespace("late"))
        #expect(report.changed.isEmpty)
    }
}
