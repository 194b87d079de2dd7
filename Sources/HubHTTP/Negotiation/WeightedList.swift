import HubPrimitives

/// A comma-separated list of field values with optional parameters and q-values, as in
/// `Accept-Encoding`, `Accept-Language` and `TE` (RFC 9110 sections 5.6.1 and 12.4.2):
/// `en-GB;q=0.8, sv, *;q=0.1`.
///
/// Parsing never fails and never traps: empty elements (`,,`, `;`, `en,;`) are skipped, a
/// malformed or out-of-range q-value (`q=2`, `q=x`) counts as `q=0`, and at most
/// ``maximumElements`` elements are read, so a client-sized header cannot make the server do
/// unbounded work or keep unbounded state.
public struct WeightedList: Sendable, Equatable {
    /// One element: its value (without parameters, OWS trimmed) and its weight in 0...1.
    public struct Element: Sendable, Equatable {
        public let value: Substring
        public let quality: Double
        /// Position in the field, for stable ordering of equal weights.
        public let position: Int
    }

    /// Elements read from one field at most (the rest are ignored).
    public static let maximumElements = 64

    /// The elements in field order.
    public let elements: [Element]

    /// Parses the field values (a repeated field is one list, RFC 9110 5.3).
    public init(_ values: [String]) {
        var elements: [Element] = []
        outer: for value in values {
            for item in value.split(separator: ",", omittingEmptySubsequences: true) {
                guard elements.count < Self.maximumElements else { break outer }
                var parts = item.split(separator: ";", omittingEmptySubsequences: false).makeIterator()
                guard let first = parts.next() else { continue }
                let element = first.trimmingOWS()
                guard !element.isEmpty else { continue }
                var quality = 1.0
                while let parameter = parts.next() {
                    let pair = parameter.trimmingOWS()
                    guard pair.count >= 2, pair.prefix(2).asciiCaseInsensitiveEquals("q=") else { continue }
                    if let parsed = Double(pair.dropFirst(2)), parsed >= 0, parsed <= 1 { quality = parsed } else { quality = 0 }
                    break
                }
                elements.append(Element(value: element, quality: quality, position: elements.count))
            }
        }
        self.elements = elements
    }

    /// Parses one field value.
    public init(_ value: String) {
        self.init([value])
    }

    /// Elements with a weight above zero, most preferred first (ties keep field order).
    public var preferred: [Element] {
        elements.filter { $0.quality > 0 }.sorted {
            $0.quality != $1.quality ? $0.quality > $1.quality : $0.position < $1.position
        }
    }
}
