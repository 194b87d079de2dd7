extension Array where Element == UInt8 {
    /// The largest array ``zeroed(count:)`` copies from its page of zeros; larger ones are made
    /// by `init(repeating:count:)`.
    public static let zeroPageBytes = 4096

    /// `count` zero bytes: the array `[UInt8](repeating: 0, count: count)` makes, made cheaper
    /// for the per-request buffers (a request's head, a response's fields), which then write
    /// over the zeros.
    ///
    /// Outside the standard library, `init(repeating:count:)` and
    /// `init(unsafeUninitializedCapacity:initializingWith:)` reach their storage class through
    /// the runtime's generic-metadata cache on every call (`swift_getGenericMetadata`, a hash
    /// lookup: about 20 ns of the 50 an allocation of a few hundred bytes takes, measured with
    /// `perf` on the benchmark machine). Making an array from a raw buffer runs the standard
    /// library's own code for bytes, which does not look it up, so up to ``zeroPageBytes`` the
    /// array is copied from one shared page of zeros (a `memcpy` of that many bytes costs less
    /// than the lookup).
    @inlinable
    public static func zeroed(count: Int) -> [UInt8] {
        guard count <= zeroPageBytes else { return [UInt8](repeating: 0, count: count) }
        return Array(UnsafeRawBufferPointer(start: ZeroPage.bytes, count: Swift.max(0, count)))
    }
}

/// The page of zeros ``Swift/Array/zeroed(count:)`` copies from.
@usableFromInline
enum ZeroPage {
    /// `Array.zeroPageBytes` zero bytes, never freed. Safe to share across threads: the lazy
    /// global initializer (run once, under the runtime's `swift_once`) writes them before any
    /// reader can see the pointer, and nothing writes them after.
    @usableFromInline
    nonisolated(unsafe) static let bytes: UnsafeRawPointer = {
        let page = UnsafeMutableRawPointer.allocate(byteCount: [UInt8].zeroPageBytes, alignment: 64)
        page.initializeMemory(as: UInt8.self, repeating: 0, count: [UInt8].zeroPageBytes)
        return UnsafeRawPointer(page)
    }()
}
