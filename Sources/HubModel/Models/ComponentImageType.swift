/// The kind of an image in a component (section 0).
public enum ComponentImageType: String, Sendable, Hashable {
    case main
    case background
    case custom
}
