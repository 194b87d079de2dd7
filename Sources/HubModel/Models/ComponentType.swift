/// Where a component sits in a view (section 0): children inherit their parent's type.
public enum ComponentType: String, Sendable, Hashable, CaseIterable {
    case header
    case body
    case overlay
}
