/// What keeps a chain's memo key valid: one check per operation whose key lasts while a check
/// passes (a fresh remote response); none when every key lasts until the definitions change.
/// A memo answer reused without asking for the key again (a held session's re-run, a recent
/// open) is the memo's answer while ``pass`` holds.
struct MemoKeyChecks: Sendable {
    let checks: [@Sendable () -> Bool]

    /// Whether every key is still valid.
    var pass: Bool {
        for check in checks where !check() { return false }
        return true
    }

    /// Collects an operation's key lifetimes as its key is made
    /// (``ChainMemo/key(feature:operations:request:connectivity:sessionID:sessionIDReads:checks:)``).
    struct Collector {
        /// Whether the lifetimes are asked at all.
        let wanted: Bool
        private var collected: [@Sendable () -> Bool] = []
        private var known = true

        init(wanted: Bool) { self.wanted = wanted }

        mutating func add(_ lifetime: MemoizationKeyLifetime) {
            switch lifetime {
            case .unknown: known = false
            case .untilDefinitionsChange: break
            case .whileValid(let check): if known { collected.append(check) }
            }
        }

        /// The checks collected; nil when not wanted or some lifetime was unknown.
        var checks: MemoKeyChecks? { wanted && known ? MemoKeyChecks(checks: collected) : nil }
    }

    private init(checks: [@Sendable () -> Bool]) { self.checks = checks }

    /// The checks of `operations` for a run of `request`, or `nil` when some operation does not
    /// say how long its key lasts (``MemoizationKeyLifetime/unknown``). Asked before the key
    /// itself: a key that changes in between fails its check later, never the other way round.
    init?(feature: Feature, operations: [any ContentOperation], request: ViewRequest, connectivity: Connectivity, sessionID: String) {
        var checks: [@Sendable () -> Bool] = []
        for index in operations.indices {
            let context = ChainMemo.keyContext(
                feature: feature, request: request, connectivity: connectivity, sessionID: sessionID, operationIndex: index)
            switch operations[index].memoizationKeyLifetime(context: context) {
            case .unknown: return nil
            case .untilDefinitionsChange: continue
            case .whileValid(let check): checks.append(check)
            }
        }
        self.checks = checks
    }
}
