import HubModel

/// An operation that observes every action performed in its session, performed or vetoed
/// (S128), and may ask to be rescheduled by returning `true`.
public protocol ActionObservingContentOperation: ContentOperation {
    func actionPerformed(_ action: ObservedAction) -> Bool
}
