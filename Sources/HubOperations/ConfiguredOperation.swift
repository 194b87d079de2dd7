import HubEngine
import HubModel

/// Adds what every configured operation may carry: `initial` content and `rescheduleOn`
/// actions. Everything else is forwarded to the wrapped operation.
package struct ConfiguredOperation: ContentOperationWithInitialContent, ActionObservingContentOperation {
    /// What the config says around the operation's kind: made once per configured operation and
    /// shared by the sessions' instances (a per-session operation then costs its own state and
    /// a pointer to these, not a copy of them: memory per held session).
    package final class Settings: Sendable {
        package let initial: JSONValue?
        package let rescheduleOn: Set<ComponentIdentifier>
        /// The `kind` written in config (explain mode names it).
        package let kind: String

        package init(initial: JSONValue?, rescheduleOn: Set<ComponentIdentifier>, kind: String) {
            self.initial = initial
            self.rescheduleOn = rescheduleOn
            self.kind = kind
        }
    }

    package let inner: any ContentOperation
    package let settings: Settings

    package init(inner: any ContentOperation, settings: Settings) {
        self.inner = inner
        self.settings = settings
    }

    package var initial: JSONValue? { settings.initial }
    package var rescheduleOn: Set<ComponentIdentifier> { settings.rescheduleOn }
    /// The `kind` written in config (explain mode names it).
    package var kind: String { settings.kind }

    package var name: String { inner.name }
    package var completesSynchronously: Bool { inner.completesSynchronously }

    package func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        try await inner.perform(builder: &builder, context: context)
    }

    package func memoizationKey(context: ContentContext) -> String? { inner.memoizationKey(context: context) }
    package func memoizationKeyLifetime(context: ContentContext) -> MemoizationKeyLifetime {
        inner.memoizationKeyLifetime(context: context)
    }
    package func memoizationKeyAndLifetime(context: ContentContext) -> (key: String?, lifetime: MemoizationKeyLifetime) {
        inner.memoizationKeyAndLifetime(context: context)
    }
    package func prepare(context: ContentContext) { inner.prepare(context: context) }

    package func addInitialContent(to builder: inout ViewModelBuilder, context: InitialContentContext) {
        if let initial { try? builder.add(json: initial) }
        (inner as? any ContentOperationWithInitialContent)?.addInitialContent(to: &builder, context: context)
    }

    /// Rescheduled after any action named in `rescheduleOn`, performed or vetoed (S128), or
    /// when the wrapped operation asks.
    package func actionPerformed(_ action: ObservedAction) -> Bool {
        let wrapped = (inner as? any ActionObservingContentOperation)?.actionPerformed(action) ?? false
        return rescheduleOn.contains(action.context.actionIdentifier) || wrapped
    }
}

/// ``ConfiguredOperation`` for a paginated operation (`paginated: true`).
package struct PaginatedConfiguredOperation: ContentOperationWithInitialContent, ActionObservingContentOperation,
    ContentOperationWithPaginatedContent
{
    package let base: ConfiguredOperation
    package let paginated: any ContentOperationWithPaginatedContent

    package init(base: ConfiguredOperation, paginated: any ContentOperationWithPaginatedContent) {
        self.base = base
        self.paginated = paginated
    }

    package var name: String { base.name }
    package var completesSynchronously: Bool { base.completesSynchronously }

    package func perform(builder: inout ViewModelBuilder, context: ContentContext) async throws {
        try await base.perform(builder: &builder, context: context)
    }

    package func appendContent(forPage pageIndex: Int, builder: inout ViewModelBuilder, context: ContentContext) async throws {
        try await paginated.appendContent(forPage: pageIndex, builder: &builder, context: context)
    }

    package func memoizationKey(context: ContentContext) -> String? { base.memoizationKey(context: context) }
    package func memoizationKeyLifetime(context: ContentContext) -> MemoizationKeyLifetime {
        base.memoizationKeyLifetime(context: context)
    }
    package func memoizationKeyAndLifetime(context: ContentContext) -> (key: String?, lifetime: MemoizationKeyLifetime) {
        base.memoizationKeyAndLifetime(context: context)
    }
    package func prepare(context: ContentContext) { base.prepare(context: context) }
    package func addInitialContent(to builder: inout ViewModelBuilder, context: InitialContentContext) {
        base.addInitialContent(to: &builder, context: context)
    }
    package func actionPerformed(_ action: ObservedAction) -> Bool { base.actionPerformed(action) }
}

extension ContentOperation {
    /// The `kind` this operation was configured with (`static`, `remote`, `patch`, `recover`,
    /// `variant`, `swift`); an operation the embedding app adds in code is `swift`.
    package var configuredKind: String {
        if let configured = self as? ConfiguredOperation { return configured.kind }
        if let paginated = self as? PaginatedConfiguredOperation { return paginated.base.kind }
        return "swift"
    }
}
