import HubEngine
import HubModel
import Testing

/// Pagination (S119..S126, S98): next pages appended by the paginated operations, page indexes,
/// errors in pagination mode, and what reschedules and reloads do to appended pages. The loader
/// tests' pagination cases and the chain's pagination details, in one suite.
@Suite("Pagination")
struct PaginationTests {
    @Test("S119 testLoadingPaginatedContentBeforeMainContentDoesNothing")
    func loadingPaginatedContentBeforeMainContentDoesNothing() async throws {
        let a = PaginatedOperationMock.appending("A")
        a.mock.setError(TestError(code: 1))
        let (_, session, _) = try await EngineFixture.session([a])
        var updates = await session.updates().makeAsyncIterator()
        for _ in 0..<3 { _ = await session.loadNextPage() }
        #expect(a.pageCalls.isEmpty)
        #expect(await session.state.version == 0)
        // No emission: the first thing the stream yields is the later successful reload.
        a.mock.setError(nil)
        _ = await session.reload()
        #expect(await collect(1, from: &updates).map(\.version) == [1])
    }

    @Test("S119 S120 without a paginated operation loadNextPage is a no-op")
    func noPaginatedOperation() async throws {
        let a = ContentOperationMock.adding("a")
        let (_, session, _) = try await EngineFixture.session([a])
        let state = await session.loadNextPage()
        #expect(state.version == 1)
        #expect(a.performCount == 1)
    }

    @Test("S121 testAppendingPaginatedContent")
    func appendingPaginatedContent() async throws {
        let a = PaginatedOperationMock.appending("A")
        let b = ContentOperationMock { builder, _, _ in builder.body["B-0"].title = "B" }
        let (_, session, first) = try await EngineFixture.session([a, b])
        #expect(first.bodyIdentifiers == ["A-0", "B-0"])
        let state = await session.loadNextPage()
        let page = try #require(a.pageCalls.last)
        #expect(page.inputBodyIdentifiers == ["A-0", "B-0"])
        // The page builder is the last snapshot, without the feature-title fallback (S121).
        #expect(page.input.title == nil)
        #expect(page.context.pageIndex == 1)
        #expect(state.bodyIdentifiers == ["A-0", "B-0", "A-1"])
        #expect(b.performCount == 1)
    }

    @Test("S122 testPageIndexIncrementedForEachPaginatedLoadingChain")
    func pageIndexIncrementedForEachPaginatedLoadingChain() async throws {
        let a = PaginatedOperationMock.appending("A")
        let (_, session, _) = try await EngineFixture.session([a])
        for _ in 0..<3 { _ = await session.loadNextPage() }
        #expect(a.pageIndexes == [1, 2, 3])
    }

    @Test("S123 in pagination mode previousError is the operation's own last error")
    func paginationPreviousErrorIsOwn() async throws {
        let b = PaginatedOperationMock.appending("B")
        let a = PaginatedOperationMock.appending("A")
        b.mock.setError(TestError(code: 2))
        let (_, session, first) = try await EngineFixture.session([b, a])
        #expect(first.failure == nil)
        #expect(a.mock.lastCall?.previousError.testError == TestError(code: 2))

        a.setPageError(TestError(code: 5))
        let failedPage = await session.loadNextPage()
        #expect(b.pageCalls.last?.previousError.testError == TestError(code: 2))  // its own, not op -1's
        #expect(a.pageCalls.last?.previousError == nil)  // its own main run succeeded
        #expect(failedPage.failure?.underlying as? TestError == TestError(code: 5))
        #expect(failedPage.version == 1)  // S95: the view stays

        a.setPageError(nil)
        let state = await session.loadNextPage()
        #expect(b.pageCalls.last?.previousError == nil)
        #expect(a.pageCalls.last?.previousError.testError == TestError(code: 5))
        #expect(state.failure == nil)
        #expect(a.pageIndexes == [1, 2])
    }

    @Test("S124 S101 testLoadingPaginatedContentMultipleTimesAppendsToQueue")
    func loadingPaginatedContentMultipleTimesAppendsToQueue() async throws {
        let gate = TaskGate()
        let a = PaginatedOperationMock(ContentOperationMock()) { builder, _, page in
            await gate.pass()
            builder.body["\(page)"].title = "page"
        }
        let (_, session, first) = try await EngineFixture.session([a])
        #expect(first.viewModel?.body.isEmpty == true)
        let loads = (0..<3).map { _ in Task { await session.loadNextPage() } }
        await waitForPendingCallers(session, 3)
        for finished in 1...2 {
            gate.release()
            await gate.arrivals(finished + 1)
            #expect(await session.state.viewModel?.body.isEmpty == true)
            #expect(await session.state.version == 1)
        }
        gate.release()
        for load in loads {
            let state = await load.value
            #expect(state.bodyIdentifiers == ["1", "2", "3"])
            #expect(state.version == 2)  // one emission for the three chains
        }
        #expect(a.pageIndexes == [1, 2, 3])
    }

    @Test("S125 testAppendedContentOperationChaining")
    func appendedContentOperationChaining() async throws {
        let a = PaginatedOperationMock(ContentOperationMock()) { builder, _, page in builder.body["A-\(page)"].title = "A" }
        let b = PaginatedOperationMock(ContentOperationMock()) { builder, _, page in builder.body["B-\(page)"].title = "B" }
        let (_, session, _) = try await EngineFixture.session([a, b])
        #expect(await session.loadNextPage().bodyIdentifiers == ["A-1", "B-1"])
        #expect(await session.loadNextPage().bodyIdentifiers == ["A-1", "B-1", "A-2", "B-2"])
    }

    @Test("S93 S119 testAppendedContentOperationErrorForwarding")
    func appendedContentOperationErrorForwarding() async throws {
        let a = PaginatedOperationMock.appending("A")
        let b = PaginatedOperationMock.appending("B")
        a.mock.setError(TestError(code: 1))
        b.mock.setError(TestError(code: 2))
        let (_, session, first) = try await EngineFixture.session([a, b])
        #expect(a.mock.lastCall?.previousError == nil)
        #expect(b.mock.lastCall?.previousError.testError == TestError(code: 1))
        #expect(first.failure?.underlying as? TestError == TestError(code: 2))
        // No view model was loaded: pagination is a no-op and the errors stay.
        let state = await session.loadNextPage()
        #expect(a.pageCalls.isEmpty)
        #expect(b.pageCalls.isEmpty)
        #expect(state.version == 0)
        #expect(state.failure?.underlying as? TestError == TestError(code: 2))
    }

    @Test("S126 rescheduling op i>0 keeps pages appended before i and the page index")
    func reschedulingLaterOperationKeepsPages() async throws {
        let a = PaginatedOperationMock.appending("A")
        let b = ContentOperationMock { builder, _, _ in builder.body["B-0"].title = "B" }
        let (_, session, _) = try await EngineFixture.session([a, b])
        _ = await session.loadNextPage()
        let state = await session.reschedule(operationAt: 1)
        #expect(b.lastCall?.inputBodyIdentifiers == ["A-0", "B-0", "A-1"])
        #expect(state.bodyIdentifiers == ["A-0", "B-0", "A-1"])
        _ = await session.loadNextPage()
        #expect(a.pageIndexes == [1, 2])
    }

    @Test("S126 testContentOperationReschedulingResetsAppendedContent")
    func contentOperationReschedulingResetsAppendedContent() async throws {
        let a = PaginatedOperationMock.appending("A")
        let b = PaginatedOperationMock.appending("B")
        let (_, session, _) = try await EngineFixture.session([a, b])
        #expect(await session.loadNextPage().bodyIdentifiers == ["A-0", "B-0", "A-1", "B-1"])
        let state = await session.reschedule(operationAt: 0)
        #expect(state.bodyIdentifiers == ["A-0", "B-0"])
        #expect(a.mock.pageIndexes == [0, 0])
        #expect(b.mock.pageIndexes == [0, 0])
        // The next page is page 1 again.
        _ = await session.loadNextPage()
        #expect(a.pageIndexes == [1, 1])
    }

    @Test("DESIGN: a full reload resets the page index")
    func reloadResetsPageIndex() async throws {
        let a = PaginatedOperationMock.appending("A")
        let (_, session, _) = try await EngineFixture.session([a])
        _ = await session.loadNextPage()
        _ = await session.loadNextPage()
        let reloaded = await session.reload()
        #expect(reloaded.bodyIdentifiers == ["A-0"])
        _ = await session.loadNextPage()
        #expect(a.pageIndexes == [1, 2, 1])
    }

    @Test("S98 testIsLoading")
    func isLoading() async throws {
        let gate = TaskGate(permits: 1)
        let a = PaginatedOperationMock(
            ContentOperationMock { builder, _, number in
                await gate.pass()
                builder.title = "\(number)"
            },
            page: { builder, _, page in
                await gate.pass()
                builder.body["\(page)"].title = "p"
            })
        let (_, session, _) = try await EngineFixture.session([a])
        #expect(await session.isLoading == false)

        let reload = Task { await session.reload() }
        await gate.arrivals(2)
        #expect(await session.isLoading == true)
        gate.release()
        _ = await reload.value
        #expect(await session.isLoading == false)

        let page = Task { await session.loadNextPage() }
        await gate.arrivals(3)
        #expect(await session.isLoading == true)
        gate.release()
        _ = await page.value
        #expect(await session.isLoading == false)
    }
}
