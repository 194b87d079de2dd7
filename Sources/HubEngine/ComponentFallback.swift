import HubModel

/// Component fallback moved to the server (S183..S186): components whose `namespace:name` a
/// client does not render get their category's fallback component; the category is kept so
/// older clients can still fall back themselves.
public struct ComponentFallback: Sendable {
    /// Fallback component per category; categories not listed use ``defaultFallback``.
    public let fallbacks: [String: ComponentIdentifier]
    /// The fallback for other categories (the component defaults, S186).
    public let defaultFallback: ComponentIdentifier

    public init(fallbacks: [String: ComponentIdentifier] = [:], defaultFallback: ComponentIdentifier = ComponentDefaults.standard.componentIdentifier) {
        self.fallbacks = fallbacks
        self.defaultFallback = defaultFallback
    }

    /// The fallback for a category (S184).
    public func fallback(forCategory category: String) -> ComponentIdentifier {
        fallbacks[category] ?? defaultFallback
    }

    /// `viewModel` with every component the client cannot render replaced by its category's
    /// fallback: header, body, overlays, children and target views. Returns the same instance
    /// when nothing changes.
    public func apply(to viewModel: ViewModel, renderable: Set<ComponentIdentifier>) -> ViewModel {
        apply(to: viewModel, replacing: { !renderable.contains($0) }, replaced: { _ in })
    }

    /// `viewModel` with every component for which `replacing` answers `true` replaced by its
    /// category's fallback (header, body, overlays, children and target views); `replaced` is
    /// called with the original component identifier of each component that changed. Returns
    /// the same instance when nothing changes.
    public func apply(
        to viewModel: ViewModel, replacing: (ComponentIdentifier) -> Bool, replaced: (ComponentIdentifier) -> Void
    ) -> ViewModel {
        var changed = false
        let source = viewModel.expanded  // a compact view model parses once
        let header = source.header.map { map($0, replacing, replaced, &changed) }
        let body = source.body.map { map($0, replacing, replaced, &changed) }
        let overlays = source.overlays.map { map($0, replacing, replaced, &changed) }
        guard changed else { return viewModel }
        return ViewModel(
            identifier: source.identifier, title: source.title, header: header, body: body, overlays: overlays,
            customData: source.customData)
    }

    private func map(
        _ model: ComponentModel, _ replacing: (ComponentIdentifier) -> Bool, _ replaced: (ComponentIdentifier) -> Void,
        _ changed: inout Bool
    ) -> ComponentModel {
        var localChange = false
        var identifier = model.componentIdentifier
        if replacing(model.componentIdentifier) {
            identifier = fallback(forCategory: model.componentCategory)
            if identifier != model.componentIdentifier {
                localChange = true
                replaced(model.componentIdentifier)
            }
        }
        let children = model.children.map { map($0, replacing, replaced, &localChange) }
        var target = model.target
        if let view = target?.initialViewModel {
            let mapped = apply(to: view, replacing: replacing, replaced: replaced)
            if mapped !== view {
                target?.initialViewModel = mapped
                localChange = true
            }
        }
        guard localChange else { return model }
        changed = true
        return ComponentModel(
            identifier: model.identifier, type: model.type, index: model.index, indexPath: model.indexPath,
            groupIdentifier: model.groupIdentifier, componentIdentifier: identifier,
            componentCategory: model.componentCategory, title: model.title, subtitle: model.subtitle,
            accessoryTitle: model.accessoryTitle, descriptionText: model.descriptionText,
            mainImageData: model.mainImageData, backgroundImageData: model.backgroundImageData,
            customImageData: model.customImageData, icon: model.icon, target: target, metadata: model.metadata,
            loggingData: model.loggingData, customData: model.customData, children: children)
    }
}
