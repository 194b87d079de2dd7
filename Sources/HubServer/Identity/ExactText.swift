#if canImport(Glibc)
import Glibc
#endif

/// Text as a dictionary key that equals another only byte for byte: `String`'s `==` and hash
/// follow Unicode canonical equivalence, under which two different byte sequences (a composed
/// and a decomposed accent) are one key. A credential or a subject is its bytes.
struct ExactText: Hashable, Sendable {
    let text: Substring

    init(_ text: Substring) { self.text = text }

    init(_ text: String) { self.text = Substring(text) }

    static func == (lhs: ExactText, rhs: ExactText) -> Bool {
        var (left, right) = (lhs.text, rhs.text)
        return left.withUTF8 { left in
            right.withUTF8 { right in
                left.count == right.count && (left.isEmpty || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0)
            }
        }
    }

    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
