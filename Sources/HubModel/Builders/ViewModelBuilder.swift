/// Builds a ``ViewModel``: the shared builder a content loading chain mutates (2.1).
///
/// A value type: assigning it takes a snapshot (S61), and copy-on-write keeps snapshots
/// cheap because unchanged components share storage.
public struct ViewModelBuilder: Sendable {
    /// The view identifier (`id`, S48).
    public var identifier: String?
    /// The navigation bar title (`title`, S48).
    public var title: String?
    public var customData: JSONObject?
    /// The header builder; `nil` when there is no header (S51, S52).
    public var header: ComponentModelBuilder? {
        didSet {
            // A builder made for another container becomes a header, descendants included (S72).
            if let current = header, current.type != .header {
                header!.adopt(identifier: current.identifier, type: .header)
            }
        }
    }
    /// Body builders in creation order (S53..S56).
    public var body: ComponentBuilderList
    /// Overlay builders in creation order (S57).
    public var overlays: ComponentBuilderList
    /// Defaults for every component created through this builder (S68, S186).
    public let defaults: ComponentDefaults

    /// An empty builder (S47).
    public init(defaults: ComponentDefaults = .standard) {
        self.defaults = defaults
        body = ComponentBuilderList(type: .body, defaults: defaults)
        overlays = ComponentBuilderList(type: .overlay, defaults: defaults)
    }

    /// `true` until a header, body or overlay builder exists; identifier, title and custom
    /// data do not count (S59).
    public var isEmpty: Bool {
        header == nil && body.isEmpty && overlays.isEmpty
    }

    /// Mutates the header, creating it with `identifier` when absent (S17, S51).
    @discardableResult
    public mutating func withHeader<R>(
        identifier: String = "header", _ update: (inout ComponentModelBuilder) throws -> R
    ) rethrows -> R {
        var builder = header ?? ComponentModelBuilder(identifier: identifier, type: .header, defaults: defaults)
        header = nil
        defer { header = builder }
        return try update(&builder)
    }

    /// Removes the header; the next access creates a fresh one (S52).
    public mutating func removeHeader() {
        header = nil
    }

    /// Removes the header, every body and every overlay builder (S58).
    public mutating func removeAllComponents() {
        header = nil
        body.removeAll()
        overlays.removeAll()
    }

    /// Sets one key of `customData`; `nil` removes it (S49).
    public mutating func setCustomDataValue(_ value: JSONValue?, forKey key: String) {
        var custom = customData ?? JSONObject()
        custom[key] = value
        customData = custom
    }

    /// Every component builder: header, then body, then overlays, each in creation order (S60).
    public var allComponentBuilders: [ComponentModelBuilder] {
        (header.map { [$0] } ?? []) + Array(body) + Array(overlays)
    }

    /// The view model; building does not consume the builder (S62).
    public func build() -> ViewModel {
        ViewModel(
            identifier: identifier, title: title, header: header?.build(index: 0),
            body: body.build(), overlays: overlays.build(),
            customData: customData.nonEmpty)
    }
}
