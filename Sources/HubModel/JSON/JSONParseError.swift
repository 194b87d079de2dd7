/// Why a JSON document was rejected, and where.
///
/// The parser never crashes and never accepts a document it cannot represent faithfully:
/// invalid UTF-8, lone surrogates, duplicate keys, numbers out of range and nesting past the
/// depth limit are all errors with a byte offset, line and column.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong.
    public enum Reason: Sendable, Equatable {
        /// The input held no bytes, or only whitespace.
        case empty
        /// A byte that cannot start or continue a value here.
        case unexpectedByte(UInt8)
        /// The input ended inside a value.
        case unexpectedEnd
        /// Bytes after the top-level value.
        case trailingBytes
        /// A string that is not valid UTF-8.
        case invalidUTF8
        /// A control character (below U+0020) inside a string.
        case unescapedControlCharacter
        /// An escape other than the JSON ones, or `\u` without four hex digits.
        case invalidEscape
        /// A `\u` escape of a lone UTF-16 surrogate.
        case loneSurrogate
        /// A malformed number (leading zero, missing digits).
        case invalidNumber
        /// An integer outside 64 bits or a number outside the finite doubles.
        case numberOutOfRange
        /// Arrays and objects nested deeper than the limit.
        case tooDeep(limit: Int)
        /// A key that appears twice in one object.
        case duplicateKey(String)
        /// A top-level value that is not an object or array where one was required.
        case notAContainer
    }

    /// What was wrong.
    public let reason: Reason
    /// Byte offset of the problem from the start of the input.
    public let offset: Int
    /// 1-based line of the problem.
    public let line: Int
    /// 1-based column (in bytes) of the problem.
    public let column: Int

    public init(reason: Reason, offset: Int, line: Int, column: Int) {
        self.reason = reason
        self.offset = offset
        self.line = line
        self.column = column
    }

    /// A sentence a person can act on, naming the place.
    public var description: String {
        "\(reasonDescription) at line \(line), column \(column) (byte \(offset))"
    }

    /// The reason alone, without the place.
    public var reasonDescription: String {
        switch reason {
        case .empty: return "empty document"
        case .unexpectedByte(let byte):
            if byte >= 0x20 && byte < 0x7F { return "unexpected character '\(Character(Unicode.Scalar(byte)))'" }
            return "unexpected byte 0x\(String(byte, radix: 16, uppercase: true))"
        case .unexpectedEnd: return "unexpected end of input"
        case .trailingBytes: return "unexpected data after the JSON value"
        case .invalidUTF8: return "invalid UTF-8 in string"
        case .unescapedControlCharacter: return "unescaped control character in string"
        case .invalidEscape: return "invalid escape sequence in string"
        case .loneSurrogate: return "lone UTF-16 surrogate in \\u escape"
        case .invalidNumber: return "invalid number"
        case .numberOutOfRange: return "number out of range"
        case .tooDeep(let limit): return "nesting deeper than \(limit) levels"
        case .duplicateKey(let key): return "duplicate key \"\(key)\""
        case .notAContainer: return "top-level value is not an object or array"
        }
    }
}
