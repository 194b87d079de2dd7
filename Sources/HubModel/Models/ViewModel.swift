/// A built view: immutable, shared freely between sessions and threads (1.1).
///
/// There is no build date: equality is content equality (S82), and the engine keeps load
/// times itself.
///
/// A view model is held in one of two forms with the same content: *built* (its component
/// objects) or *compact* (only the JSON bytes it serializes to, ``compacted()``), which is what
/// a held session keeps between loads: about the size of what it serves. A compact view model
/// answers ``jsonBytes(capacityHint:)`` with those bytes, without serializing; reading its
/// components parses them again each time, so code that walks one reads ``expanded`` once.
public final class ViewModel: Sendable, Equatable {
    private let content: Content

    private enum Content: Sendable {
        case built(Parts)
        case compact([UInt8])
    }

    private struct Parts: Sendable {
        let identifier: String?
        let title: String?
        let header: ComponentModel?
        let body: [ComponentModel]
        let overlays: [ComponentModel]
        let customData: JSONObject?
    }

    public init(
        identifier: String? = nil, title: String? = nil, header: ComponentModel? = nil,
        body: [ComponentModel] = [], overlays: [ComponentModel] = [], customData: JSONObject? = nil
    ) {
        content = .built(
            Parts(
                identifier: identifier, title: title, header: header, body: body, overlays: overlays,
                customData: customData))
    }

    private init(compactJSON bytes: [UInt8]) {
        content = .compact(bytes)
    }

    /// An empty view model.
    public static let empty = ViewModel()

    /// The view identifier (`id`).
    public var identifier: String? { parts.identifier }
    /// The navigation bar title (`title`).
    public var title: String? { parts.title }
    public var header: ComponentModel? { parts.header }
    public var body: [ComponentModel] { parts.body }
    public var overlays: [ComponentModel] { parts.overlays }
    public var customData: JSONObject? { parts.customData }

    /// `true` when this view model holds only its JSON bytes (``compacted()``).
    public var isCompact: Bool {
        if case .compact = content { return true }
        return false
    }

    /// The same view held as the JSON bytes it serializes to: its components are dropped and
    /// parsed again when read. Returns `self` when already compact.
    public func compacted() -> ViewModel {
        if case .compact = content { return self }
        return ViewModel(compactJSON: jsonBytes())
    }

    /// The same view with its component objects: `self` when built, else a view model parsed
    /// from the compact bytes (a new one on each call).
    public var expanded: ViewModel {
        guard case .compact(let bytes) = content else { return self }
        return Self.parse(bytes)
    }

    /// The compact form's JSON bytes, or `nil` for a built view model.
    public var compactBytes: [UInt8]? {
        if case .compact(let bytes) = content { return bytes }
        return nil
    }

    private var parts: Parts {
        switch content {
        case .built(let parts): return parts
        case .compact(let bytes): return Self.parse(bytes).parts
        }
    }

    /// The view model the bytes were written from. They are this type's own output, so they
    /// parse (any depth: the parser's nesting limit is for untrusted input); the empty view
    /// model would only stand for bytes that do not.
    private static func parse(_ bytes: [UInt8]) -> ViewModel {
        let parser = JSONParser(options: JSONParser.Options(maxDepth: Int.max))
        var builder = ViewModelBuilder()
        do throws(JSONParseError) {
            try builder.addJSON(bytes, parser: parser)
        } catch {
            return ViewModel()
        }
        return builder.build()
    }

    /// The first component with this identifier: the header, then body and overlays, each
    /// searched depth-first through children.
    public func component(withIdentifier identifier: String) -> ComponentModel? {
        let parts = self.parts
        func search(_ models: [ComponentModel]) -> ComponentModel? {
            for model in models {
                if model.identifier == identifier { return model }
                if let found = search(model.children) { return found }
            }
            return nil
        }
        if let header = parts.header {
            if header.identifier == identifier { return header }
            if let found = search(header.children) { return found }
        }
        return search(parts.body) ?? search(parts.overlays)
    }

    public static func == (lhs: ViewModel, rhs: ViewModel) -> Bool {
        if lhs === rhs { return true }
        if let left = lhs.compactBytes, let right = rhs.compactBytes, left == right { return true }
        let left = lhs.parts, right = rhs.parts
        return left.identifier == right.identifier && left.title == right.title && left.header == right.header
            && left.body == right.body && left.overlays == right.overlays && left.customData == right.customData
    }
}
