/// How long an operation's ``ContentOperation/memoizationKey(context:)`` keeps the value it
/// returned, for the same request and the same definitions. It lets a held session under
/// `reload: always` answer a load without re-running a chain whose re-run the chain memo would
/// answer with the view it already shows: every operation's key unchanged means the same result.
public enum MemoizationKeyLifetime: Sendable {
    /// Unknown (the default): the key may change between calls (it reads a clock, a counter,
    /// anything outside the request and the definitions), so every load under `reload: always`
    /// asks for it again by re-running the chain.
    case unknown
    /// The key depends only on the request and the definitions: it keeps its value until a
    /// reload changes the definitions (static content, a patch).
    case untilDefinitionsChange
    /// The key keeps its value while `isValid` returns `true` (a remote response while it is
    /// fresh). `isValid` is called on the request path: it must be cheap and must not block.
    case whileValid(@Sendable () -> Bool)
}
