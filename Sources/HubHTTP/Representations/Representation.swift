import HubSync

/// A response body prepared ahead of the request: its bytes, their strong ETag, and its gzip
/// encoding, made on first use and kept for every later response that carries the same object.
///
/// A responder answers with ``HTTPResponse/Body/representation(_:)``; ``RepresentationMiddleware``
/// then decides for the request at hand: `304 Not Modified` on a matching `If-None-Match`, gzip
/// or identity, `Vary: Accept-Encoding`, and the `ETag` header (weak on the gzip encoding). A
/// representation cached across requests (a rendered view shared by many sessions) is hashed
/// and compressed once however many responses carry it.
public final class Representation: Sendable {
    /// The identity (uncompressed) content.
    public var bytes: [UInt8] { identity.bytes }
    /// The identity content as the transport sends it (from a sealed file once sent often).
    public let identity: SharedBytes
    /// The strong entity tag of ``bytes`` (quoted).
    public let etag: String
    /// The ETag of an encoded (gzip) form of ``bytes``: weak when ``etag`` is strong (RFC 9110
    /// 8.8.1: the encoded bytes differ), made once.
    public let encodedETag: String
    /// Unset until first asked; then the gzip bytes, or nil bytes when gzip was not smaller.
    /// Written once and read without a lock (every gzip response of a shared view reads it).
    private let gzipped = WriteOnceReference<Encoded>()

    /// An encoding made once (``gzipped``).
    private final class Encoded: Sendable {
        let shared: SharedBytes?
        init(_ bytes: [UInt8]?) { self.shared = bytes.map(SharedBytes.init) }
    }

    /// `bytes` with `etag`, by default ``ETag/strong(for:)`` of the bytes.
    public init(bytes: [UInt8], etag: String? = nil) {
        self.identity = SharedBytes(bytes)
        let etag = etag ?? ETag.strong(for: bytes)
        self.etag = etag
        self.encodedETag = ETag.forEncoding(etag)
    }

    /// The gzip encoding of ``bytes`` at `level`, compressed on the first call and returned as
    /// it is by every later one (whatever their `level`); `nil` when it would not be smaller.
    public func gzip(level: Int) -> [UInt8]? {
        gzipShared(level: level)?.bytes
    }

    /// ``gzip(level:)`` as the transport sends it (from a sealed file once sent often).
    public func gzipShared(level: Int) -> SharedBytes? {
        if let cached = gzipped.load() { return cached.shared }
        // Two first callers may both compress: the first stored wins, both answer with it.
        return gzipped.storeIfNil(Encoded(Gzip.compressIfSmaller(bytes, level: level))).shared
    }
}
