import HubPrimitives

/// Text as a dictionary key that equals another only byte for byte: `String`'s `==` and hash
/// follow Unicode canonical equivalence, under which two different byte sequences (a composed
/// and a decomposed accent) are one key. A credential or a subject is its bytes. Compared in
/// constant time (``ConstantTime/equal(_:_:)``): a table keeps other clients' tokens, and how
/// long a comparison took must not say how much of one a guess matched.
struct ExactText: Hashable, Sendable {
    let text: Substring

    init(_ text: Substring) { self.text = text }

    init(_ text: String) { self.text = Substring(text) }

    static func == (lhs: ExactText, rhs: ExactText) -> Bool {
        var (left, right) = (lhs.text, rhs.text)
        return left.withUTF8 { left in
            right.withUTF8 { right in
                ConstantTime.equal(UnsafeRawBufferPointer(left), UnsafeRawBufferPointer(right))
            }
        }
    }

    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
