import HubModel

/// How one operation of a session's latest run made the view (explain mode): what it was,
/// how long it took, how it ended, and which components it created, modified, moved and
/// removed, found by comparing the builder it started from with the one it left (S90).
///
/// Only the view's own components are compared (header, body and overlays, by identifier);
/// a change inside a component's children is a modification of that component.
public struct OperationExplanation: Sendable {
    /// How an operation's latest run ended.
    public enum Outcome: String, Sendable {
        /// It ran and succeeded.
        case ran
        /// Its result came from the chain memo (nothing ran).
        case memo
        /// It did not run in the latest run (its session only has initial content so far).
        case skipped
        /// It failed (its error reaches the next operation, S93).
        case failed
        /// It ran after a failed operation and succeeded (it handled the error, S93).
        case recovered
    }

    /// The operation itself (a server names its configured kind from it).
    public let operation: any ContentOperation
    public let name: String
    public let duration: Duration
    public let outcome: Outcome
    /// `true` when the operation before it failed in the latest run.
    public let previousFailed: Bool
    /// Component identifiers, in view order.
    public let created: [String]
    public let modified: [String]
    public let moved: [String]
    public let removed: [String]

    /// What changed between the view before an operation and the view after it.
    struct Changes {
        var created: [String] = []
        var modified: [String] = []
        var moved: [String] = []
        var removed: [String] = []

        init(from old: ViewModel?, to new: ViewModel?) {
            let old = old ?? ViewModel()
            let new = new ?? ViewModel()
            compareHeader(old.header, new.header)
            let diff = ViewModelDiff(from: old, to: new)
            let deleted = diff.deletedBodyIndexes.map { old.body[$0] }
            let inserted = diff.insertedBodyIndexes.map { new.body[$0] }
            let deletedByID = Dictionary(deleted.map { ($0.identifier, $0) }) { first, _ in first }
            let insertedIDs = Set(inserted.map(\.identifier))
            modified += diff.reloadedBodyIndexes.map { old.body[$0].identifier }
            for component in inserted {
                if let before = deletedByID[component.identifier] {
                    moved.append(component.identifier)
                    if before != component { modified.append(component.identifier) }
                } else {
                    created.append(component.identifier)
                }
            }
            removed += deleted.map(\.identifier).filter { !insertedIDs.contains($0) }
            compareOverlays(old.overlays, new.overlays)
        }

        private mutating func compareHeader(_ old: ComponentModel?, _ new: ComponentModel?) {
            switch (old, new) {
            case (nil, let new?): created.append(new.identifier)
            case (let old?, nil): removed.append(old.identifier)
            case (let old?, let new?) where old.identifier != new.identifier:
                removed.append(old.identifier)
                created.append(new.identifier)
            case (let old?, let new?) where old != new: modified.append(new.identifier)
            default: break
            }
        }

        private mutating func compareOverlays(_ old: [ComponentModel], _ new: [ComponentModel]) {
            let oldByID = Dictionary(old.map { ($0.identifier, $0) }) { first, _ in first }
            let newIDs = Set(new.map(\.identifier))
            for component in new {
                if let before = oldByID[component.identifier] {
                    if before != component { modified.append(component.identifier) }
                } else {
                    created.append(component.identifier)
                }
            }
            removed += old.map(\.identifier).filter { !newIDs.contains($0) }
        }
    }
}

extension ViewSession {
    /// How each operation of the latest run made the current view, in chain order: computed
    /// from the snapshots the run kept (each operation's output, S90), so asking runs nothing
    /// and changes nothing.
    public func explanation() -> [OperationExplanation] {
        var before: ViewModel?
        var explained: [OperationExplanation] = []
        explained.reserveCapacity(operations.count)
        for (index, operation) in operations.enumerated() {
            let after = snapshots.indices.contains(index) ? snapshots[index]?.build() : nil
            let error = errors.indices.contains(index) ? errors[index] : nil
            let previousFailed = index > 0 && errors.indices.contains(index - 1) && errors[index - 1] != nil
            let timing = timings.indices.contains(index) ? timings[index] : nil
            let outcome: OperationExplanation.Outcome
            if snapshots.indices.contains(index) && snapshots[index] == nil {
                outcome = .skipped
            } else if error != nil {
                outcome = .failed
            } else if timing?.memoized == true {
                outcome = .memo
            } else if previousFailed {
                outcome = .recovered
            } else {
                outcome = .ran
            }
            let changes = OperationExplanation.Changes(from: before, to: after ?? before)
            explained.append(
                OperationExplanation(
                    operation: operation, name: operation.name, duration: timing?.duration ?? .zero, outcome: outcome,
                    previousFailed: previousFailed, created: changes.created, modified: changes.modified,
                    moved: changes.moved, removed: changes.removed))
            if let after { before = after }
        }
        return explained
    }
}
