import HubSync

/// A compiled regular expression shared between threads. `Regex` is not `Sendable`, so each
/// copy lives behind a lock, one copy per stripe of threads (the event loops do not queue on one
/// lock). A URI that does not start with the pattern's literal prefix (``literalPrefix``) is
/// refused without running the expression.
final class CompiledPattern: Sendable {
    let source: String
    /// Bytes every URI the expression matches whole starts with: the ASCII letters, digits and
    /// `:`, `/`, `_`, `-` it opens with (after a `^`), up to the first other character (less the
    /// last one when that character is a quantifier); empty when the expression has an
    /// alternation outside every group, or turns on extended syntax (`(?x)`, whose comments this
    /// does not read).
    let literalPrefix: [UInt8]
    private let regexes: Striped<Regex<AnyRegexOutput>>

    init(_ source: String) throws {
        _ = try Regex(source)
        self.source = source
        self.literalPrefix = Self.literalPrefix(of: source)
        self.regexes = Striped(count: 4) {
            // Compiled above from the same source: it cannot throw here.
            try! Regex(source)
        }
    }

    func matchesWhole(_ text: String) -> Bool {
        guard text.utf8.starts(with: literalPrefix) else { return false }
        return regexes.current.withLock { regex in (try? regex.wholeMatch(in: text)) != nil }
    }

    /// The literal bytes a match must start with. Each of them is a character that stands for
    /// itself in a regular expression and is ASCII, so it matches one `Character` equal to it,
    /// whose UTF-8 is that one byte: a URI whose bytes do not start with them cannot match.
    static func literalPrefix(of source: String) -> [UInt8] {
        var bytes = Array(source.utf8)
        guard !hasTopLevelAlternation(bytes), !turnsOnExtendedSyntax(bytes) else { return [] }
        if bytes.first == UInt8(ascii: "^") { bytes.removeFirst() }
        var prefix: [UInt8] = []
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "_"),
                UInt8(ascii: "-"):
                prefix.append(byte)
            case UInt8(ascii: "?"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "{"):
                // The character before a quantifier may be absent or repeated.
                if !prefix.isEmpty { prefix.removeLast() }
                return prefix
            default:
                return prefix
            }
        }
        return prefix
    }

    /// Whether a `|` stands outside every group (and is not escaped or in a bracket expression),
    /// splitting the whole expression into alternatives; also true when the groups do not
    /// balance or a bracket expression starts with `]` (not read here: assume the worst).
    static func hasTopLevelAlternation(_ bytes: [UInt8]) -> Bool {
        var depth = 0
        var inBrackets = false
        var escaped = false
        var previous: UInt8 = 0
        for byte in bytes {
            defer { previous = byte }
            if escaped {
                escaped = false
                continue
            }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                continue
            }
            if inBrackets {
                if byte == UInt8(ascii: "]") {
                    if previous == UInt8(ascii: "[") || previous == UInt8(ascii: "^") { return true }
                    inBrackets = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "["): inBrackets = true
            case UInt8(ascii: "("): depth += 1
            case UInt8(ascii: ")"):
                depth -= 1
                if depth < 0 { return true }
            case UInt8(ascii: "|") where depth == 0: return true
            default: break
            }
        }
        return depth != 0 || inBrackets
    }

    /// Whether an option group (`(?x)`, `(?ix:`, ...) turns on extended syntax anywhere.
    static func turnsOnExtendedSyntax(_ bytes: [UInt8]) -> Bool {
        var index = 0
        while index + 1 < bytes.count {
            defer { index += 1 }
            guard bytes[index] == UInt8(ascii: "("), bytes[index + 1] == UInt8(ascii: "?") else { continue }
            var flag = index + 2
            while flag < bytes.count, bytes[flag] != UInt8(ascii: ")"), bytes[flag] != UInt8(ascii: ":") {
                if bytes[flag] == UInt8(ascii: "x") { return true }
                flag += 1
            }
        }
        return false
    }
}
