import HubModel

/// `Config/strings/<locale>.json`: the strings of static and remote content, by locale and key
/// (docs/LOCALIZATION.md "String catalogs").
///
/// ```json
/// { "home.title": "Startseite", "cart.count": "{count} Artikel" }
/// ```
/// One flat object per supported locale, keys to strings. Read with the config (a reload reads
/// them again and re-runs every feature's sessions when one changed); files for locales that are
/// not supported are ignored with a warning.
package struct StringCatalogs: Sendable, Equatable {
    /// The directory under the config directory.
    package static let directory = "strings"

    /// Strings by locale (the supported tag as configured) and key.
    package let tables: [String: [String: String]]

    package init(tables: [String: [String: String]] = [:]) {
        self.tables = tables
    }

    /// Whether no catalog was read.
    package var isEmpty: Bool { tables.isEmpty }

    /// The file a locale's catalog is read from.
    package static func file(for locale: String) -> String { "\(directory)/\(locale).json" }

    /// Every key of every catalog, sorted.
    package var allKeys: [String] { Set(tables.values.flatMap(\.keys)).sorted() }

    /// `template` with each `{name}` that `args` names replaced by its value (strings as they
    /// are, numbers and booleans as JSON writes them); other braces stay as written.
    package static func format(_ template: String, args: JSONObject?) -> String {
        guard let args, !args.isEmpty, template.contains("{") else { return template }
        var result = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            let after = rest.index(after: open)
            guard let close = rest[after...].firstIndex(of: "}") else {
                rest = rest[open...]
                break
            }
            let name = String(rest[after..<close])
            if let value = args[name], let text = Self.text(of: value) {
                result += text
            } else {
                result += rest[open...close]
            }
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    /// A scalar argument's text; nil for null, arrays and objects.
    private static func text(of value: JSONValue) -> String? {
        switch value {
        case .string(let text): return text
        case .int(let number): return String(number)
        case .double(let number):
            return number.rounded() == number && abs(number) < 1e15 ? String(Int(number)) : String(number)
        case .bool(let flag): return flag ? "true" : "false"
        case .null, .array, .object: return nil
        }
    }
}
