import HubModel

/// One step of a view's content loading chain: it mutates the shared builder, or throws
/// to fail (S88..S94). Operations are created per session by a ``ContentOperationFactory``
/// and run one at a time, in chain order, on the session's actor.
///
/// An operation that keeps state between runs must protect it itself (it is `Sendable`);
/// the chain never runs two operations of one session at once.
public protocol ContentOperation: Sendable {
    /// A short name for logs, `Server-Timing` and problem bodies, e.g. `remote` or `todoList`.
    var name: String { get }

    /// `true` when `perform` never suspends (pure work on the builder). The chain then runs
    /// it inline, without the deadline timer that guards operations that wait on I/O.
    var completesSynchronously: Bool { get }

    /// Adds content to `builder`. Throwing fails this operation; the error reaches the next
    /// operation as ``ContentContext/previousError`` (S93) and fails the view only when this
    /// is the last operation (S92).
    func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws

    /// A key that, together with the chain's other keys, identifies this operation's output
    /// for a given input: equal keys promise equal results. `nil` (the default) means the
    /// operation may produce different content each time, so its chain is never memoized.
    func memoizationKey(context: ContentContext) -> String?

    /// How long ``memoizationKey(context:)`` keeps the value it returns now for this context:
    /// ``MemoizationKeyLifetime/unknown`` (the default) unless the operation knows.
    func memoizationKeyLifetime(context: ContentContext) -> MemoizationKeyLifetime

    /// ``memoizationKeyLifetime(context:)`` and ``memoizationKey(context:)`` asked together,
    /// for a chain whose memo answer may be reused without asking again: by default the lifetime
    /// first, then the key. An operation whose two answers read one source (a remote response's
    /// freshness) answers both from one reading, the lifetime being the key's own.
    func memoizationKeyAndLifetime(context: ContentContext) -> (key: String?, lifetime: MemoizationKeyLifetime)

    /// Called for every operation, in order, when a full main run starts and before operation
    /// 0 performs: an operation whose input depends only on the request (e.g. a remote fetch
    /// whose URL does) can start its I/O here, so independent fetches overlap. Results still
    /// apply in chain order in `perform`. Must not block.
    func prepare(context: ContentContext)
}

extension ContentOperation {
    public var name: String { String(describing: type(of: self)) }
    public var completesSynchronously: Bool { false }
    public func memoizationKey(context: ContentContext) -> String? { nil }
    public func memoizationKeyLifetime(context: ContentContext) -> MemoizationKeyLifetime { .unknown }
    public func memoizationKeyAndLifetime(context: ContentContext) -> (key: String?, lifetime: MemoizationKeyLifetime) {
        let lifetime = memoizationKeyLifetime(context: context)
        return (memoizationKey(context: context), lifetime)
    }
    public func prepare(context: ContentContext) {}
}
