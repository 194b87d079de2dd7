/// Writing RFC 8941 structured-field items from arbitrary text.
package enum StructuredField {
    /// `text` as a token when it is one (`ALPHA / "*"` then `tchar / ":" / "/"`), else as an
    /// sf-string with `"` and `\` escaped and characters outside printable ASCII dropped.
    package static func item(_ text: String) -> String {
        if isToken(text) { return text }
        var quoted = "\""
        for scalar in text.unicodeScalars where scalar.value >= 0x20 && scalar.value < 0x7F {
            if scalar == "\"" || scalar == "\\" { quoted += "\\" }
            quoted.unicodeScalars.append(scalar)
        }
        return quoted + "\""
    }

    package static func isToken(_ text: String) -> Bool {
        guard let first = text.utf8.first, first == UInt8(ascii: "*") || isAlpha(first) else { return false }
        return text.utf8.allSatisfy { byte in
            isAlpha(byte) || (byte >= 0x30 && byte <= 0x39) || Array("!#$%&'*+-.^_`|~:/".utf8).contains(byte)
        }
    }

    private static func isAlpha(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }
}
