/// The features, in precedence order: built, validated, then frozen (S131..S135).
public struct FeatureRegistry: Sendable {
    /// A feature list that cannot be served.
    public struct ValidationError: Error, Sendable, CustomStringConvertible, Equatable {
        public let featureIdentifier: String
        public let message: String
        public var description: String { "feature '\(featureIdentifier)': \(message)" }
    }

    /// Features in precedence order: the first whose predicate matches wins (S133).
    public private(set) var features: [Feature] {
        didSet { lookup = FeatureLookup(features) }
    }
    /// How ``feature(for:)`` finds that first match without asking every predicate.
    private var lookup: FeatureLookup
    /// Asked before actions in features that have no handler of their own (S144).
    public let defaultActionHandler: (any ActionHandler)?

    /// Validates `features`: identifiers must be unique and non-empty, titles non-empty, and
    /// each feature needs at least one operation factory (S132).
    public init(features: [Feature], defaultActionHandler: (any ActionHandler)? = nil) throws(ValidationError) {
        var seen: Set<String> = []
        for feature in features {
            guard !feature.identifier.isEmpty else {
                throw ValidationError(featureIdentifier: "", message: "the identifier must not be empty")
            }
            guard seen.insert(feature.identifier).inserted else {
                throw ValidationError(featureIdentifier: feature.identifier, message: "duplicate feature identifier")
            }
            guard !feature.title.isEmpty else {
                throw ValidationError(featureIdentifier: feature.identifier, message: "the title must not be empty")
            }
            guard !feature.operationFactories.isEmpty else {
                throw ValidationError(featureIdentifier: feature.identifier, message: "a feature needs at least one content operation")
            }
        }
        self.features = features
        self.lookup = FeatureLookup(features)
        self.defaultActionHandler = defaultActionHandler
    }

    /// The same registry with each feature transformed (identifiers unchanged: no validation).
    func replacingFeatures(_ transform: (Feature) -> Feature) -> FeatureRegistry {
        var copy = self
        copy.features = features.map(transform)
        return copy
    }

    /// The first feature whose predicate matches `viewURI`, or `nil` (S133, S134).
    public func feature(for viewURI: String) -> Feature? {
        lookup.index(for: viewURI, in: features).map { features[$0] }
    }

    /// The feature with this identifier.
    public func feature(identifier: String) -> Feature? {
        features.first { $0.identifier == identifier }
    }

    /// The handler for a feature: its own, else the default (S144).
    public func actionHandler(for feature: Feature) -> (any ActionHandler)? {
        feature.actionHandler ?? defaultActionHandler
    }
}
