/// A one-word summary of the field names a header section holds, so that a lookup of a name the
/// section does not hold answers without walking its fields: a request's path asks for a dozen
/// fields a client seldom sends (`If-None-Match`, `Hub-Session`, `X-Forwarded-For`,
/// `tracestate`, ...), and each ask walked every field the client did send.
///
/// Each name sets one of 64 bits, picked from its length and its first and last bytes with ASCII
/// letters lowercased, so names that are equal ignoring case set the same bit. A clear bit proves
/// the name absent; a set bit proves nothing (another name may have set it), and the lookup then
/// walks the fields and compares names as before. A field removed may leave its bit set: the
/// summary may only over-report, never under-report, and over-reporting costs only the walk.
enum FieldNameFilter {
    /// The bit `name` sets (also for an empty name, which no parsed field has).
    @inline(__always)
    static func bit(of name: UnsafeBufferPointer<UInt8>) -> UInt64 {
        guard let first = name.first, let last = name.last else { return 1 }
        // `| 0x20` lowercases ASCII letters; other bytes may meet another's, which only over-reports.
        let mixed = UInt32(truncatingIfNeeded: name.count) &* 0x9E37 &+ UInt32(first | 0x20) &* 0x2F1 &+ UInt32(last | 0x20)
        return 1 &<< UInt64((mixed ^ (mixed >> 6)) & 63)
    }

    /// Whether a section whose names set the bits `summary` may hold a field `name`: false proves
    /// it holds none.
    @inline(__always)
    static func mayHold(_ name: UnsafeBufferPointer<UInt8>, summary: UInt64) -> Bool {
        summary & bit(of: name) != 0
    }
}
