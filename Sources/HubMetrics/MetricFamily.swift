import HubSync

/// One metric name with its label names, and a child per distinct label values.
///
/// Children are created once and cached; keep label values low-cardinality (route
/// templates, not raw paths). As a backstop against a label fed by client input, a family
/// holds at most ``maximumChildren`` label sets: values past it share one child whose every
/// label is ``overflowLabel``, so memory and the exposition stay bounded whatever arrives.
public final class MetricFamily<Metric: Sendable>: Sendable {
    public enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    public let name: String
    public let help: String
    public let kind: Kind
    public let labelNames: [String]
    /// Most distinct label sets (the overflow child included).
    public let maximumChildren: Int
    /// The label value of the child that collects label sets past ``maximumChildren``.
    public static var overflowLabel: String { "_overflow" }
    private let make: @Sendable () -> Metric
    private let children = Locked<[[String]: Metric]>([:])
    /// One-label children by their value (the same metrics as in `children`).
    /// Striped by thread: the event loops look children up on every request.
    @usableFromInline let singleLabelChildren = Striped<SingleLabelChildren> { SingleLabelChildren() }
    /// One stripe of ``singleLabelChildren``: the children by value, and the last one asked for
    /// (a loop serving one route or feature compares a string instead of hashing it).
    @usableFromInline struct SingleLabelChildren {
        @usableFromInline var byValue: [String: Metric] = [:]
        @usableFromInline var last: (value: String, metric: Metric)?
        init() {}
    }
    /// Children in creation order, for stable exposition.
    private let order = Locked<[[String]]>([])

    init(
        name: String, help: String, kind: Kind, labelNames: [String], maximumChildren: Int = 2000,
        make: @escaping @Sendable () -> Metric
    ) {
        self.maximumChildren = max(2, maximumChildren)
        self.name = name
        self.help = help
        self.kind = kind
        self.labelNames = labelNames
        self.make = make
    }

    /// The child for these label values (in ``labelNames`` order), created on first use.
    public func labels(_ values: String...) -> Metric {
        labels(values)
    }

    /// The child for a one-label family's value: looked up by the string itself, without
    /// building a label array (a family with one label is looked up on hot paths).
    ///
    /// Inlinable, so callers use it specialized for their metric type: unspecialized, every call
    /// looked up the generic metadata of the stripes' types (a runtime cache probe per request).
    @inlinable
    public func labels(_ value: String) -> Metric {
        let found = singleLabelChildren.current.withLock { children -> Metric? in
            if let last = children.last, last.value == value { return last.metric }
            guard let metric = children.byValue[value] else { return nil }
            children.last = (value, metric)
            return metric
        }
        return found ?? addSingleLabelChild(value)
    }

    /// The child for a one-label family's value that the calling thread's stripe lacks.
    @usableFromInline
    func addSingleLabelChild(_ value: String) -> Metric {
        let metric = labels([value])  // the same child for every stripe
        singleLabelChildren.current.withLock { children in
            if children.byValue.count < maximumChildren { children.byValue[value] = metric }
            children.last = (value, metric)
        }
        return metric
    }

    /// The child for these label values (in ``labelNames`` order), created on first use.
    public func labels(_ values: [String]) -> Metric {
        precondition(values.count == labelNames.count, "\(name) takes \(labelNames.count) label values")
        return children.withLock { children in
            if let existing = children[values] { return existing }
            var key = values
            if children.count >= maximumChildren - 1 {
                key = Array(repeating: Self.overflowLabel, count: labelNames.count)
                if let overflow = children[key] { return overflow }
            }
            let metric = make()
            children[key] = metric
            order.withLock { $0.append(key) }
            return metric
        }
    }

    /// Children with their label values, in creation order.
    public var allChildren: [(labels: [String], metric: Metric)] {
        let keys = order.withLock { $0 }
        return children.withLock { children in keys.compactMap { key in children[key].map { (key, $0) } } }
    }
}
