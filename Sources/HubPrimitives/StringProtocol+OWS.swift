extension StringProtocol {
    /// The string without leading and trailing spaces and tabs (RFC 9110 OWS), as header field
    /// values and list elements are read.
    public func trimmingOWS() -> SubSequence {
        var start = startIndex, end = endIndex
        while start < end, self[start] == " " || self[start] == "\t" { start = index(after: start) }
        while end > start {
            let before = index(before: end)
            guard self[before] == " " || self[before] == "\t" else { break }
            end = before
        }
        return self[start..<end]
    }
}
