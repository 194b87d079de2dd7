import HubPrimitives

/// The one place that decides, for every response, what this request gets of its content:
/// `304 Not Modified`, gzip or identity, `Vary: Accept-Encoding`, and the `ETag` header.
///
/// - A ``HTTPResponse/Body/representation(_:)`` body brings its strong ETag and its cached
///   gzip; a ``HTTPResponse/Body/bytes(_:)`` body may bring an `ETag` header of its own and is
///   compressed per response. Streams and ``HTTPResponse/Body/shared(_:)`` bodies (already
///   decided) pass untouched; a representation leaves as its identity or gzip ``SharedBytes``.
/// - A byte body of at least `minBytes` (not 1xx/204/304, no `Content-Encoding` yet) gets
///   `Vary: Accept-Encoding`, and gzip when `Accept-Encoding` prefers it (q-values, `*`,
///   `identity`, `gzip;q=0` honoured: ``AcceptEncoding``) and gzip is smaller. A strong `ETag`
///   becomes weak on the gzip encoding (as nginx does), so `If-None-Match` still matches.
/// - A 200 to a GET or HEAD whose `If-None-Match` matches the ETag (weak comparison) becomes a
///   304 by ``HTTPResponse/notModified(keeping:)``, with the `ETag` and `Vary` the 200 would have.
///
/// Put it innermost (next to the router): it sees the responders' bodies before anything frames them.
public struct RepresentationMiddleware: HTTPMiddleware {
    /// Bodies smaller than this are sent as they are (and do not vary by `Accept-Encoding`).
    public let minBytes: Int
    /// zlib level, 1 (fast) to 9 (small).
    public let level: Int

    /// Compresses bodies of at least `minBytes` at zlib `level`.
    public init(minBytes: Int = 1024, level: Int = 6) {
        self.minBytes = minBytes
        self.level = level
    }

    /// Compresses as `configuration` says.
    public init(_ configuration: HTTPServerConfiguration.Gzip) {
        self.init(minBytes: configuration.minBytes, level: configuration.level)
    }

    /// `response` as ``prepare(_:for:)`` makes it for `request`.
    public func after(_ response: consuming HTTPResponse, to request: HTTPRequest, context: RequestContext) -> HTTPResponse {
        prepare(response, for: request)
    }

    /// `response` as `request` gets it (see the type's documentation).
    public func prepare(_ response: consuming HTTPResponse, for request: HTTPRequest) -> HTTPResponse {
        // Changed in place: `response` is this call's own (a copy would copy the header array
        // when a field is added).
        let bytes: [UInt8]
        let representation: Representation?
        switch response.body {
        case .stream, .shared:
            return response
        case .bytes(let body):
            bytes = body
            representation = nil
        case .representation(let prepared):
            bytes = prepared.bytes
            representation = prepared
        }
        // The three fields the decision reads, each found in place (names compared by length
        // first): only a matching value is copied.
        let encoded = response.headers.contains("Content-Encoding")
        var variesByEncoding = false
        // A `Vary` the responder sent (`Accept-Language, Hub-Locale`): `Accept-Encoding` joins it.
        var vary: String?
        response.headers.forEachValue(named: "Vary") { value in
            vary = vary.map { $0 + ", " + value } ?? value
            variesByEncoding = HTTPHeaders.listContains(value, "Accept-Encoding") || HTTPHeaders.listContains(value, "*")
            return !variesByEncoding
        }
        let etagHeader = response.headers["ETag"]
        let etag = representation?.etag ?? etagHeader
        var gzip: HTTPResponse.Body?
        if bytes.count >= minBytes, !response.status.forbidsBody, !encoded {
            if !variesByEncoding {
                if let vary, !vary.trimmingOWS().isEmpty {
                    response.headers.replaceOrAdd(name: "Vary", value: vary + ", Accept-Encoding")
                } else {
                    response.headers.add(name: "Vary", value: "Accept-Encoding")
                }
            }
            if AcceptEncoding.prefersGzip(in: request.headers) {
                if let representation {
                    gzip = representation.gzipShared(level: level).map { .shared($0) }
                } else {
                    gzip = Gzip.compressIfSmaller(bytes, level: level).map { .bytes($0) }
                }
            }
        }
        if let etag {
            // The ETag of what is sent: weak on the gzip encoding when the tag is strong.
            let sent = gzip == nil ? etag : representation?.encodedETag ?? ETag.forEncoding(etag)
            if etagHeader == nil {
                response.headers.add(name: "ETag", value: sent)
            } else if sent != etagHeader {
                response.headers["ETag"] = sent
            }
            if response.status == .ok, ETag.isNotModified(request, etag: etag) {
                return HTTPResponse.notModified(keeping: response.headers)
            }
        }
        if let gzip {
            response.body = gzip
            response.headers.add(name: "Content-Encoding", value: "gzip")
        } else if let representation {
            response.body = .shared(representation.identity)
        }
        return response
    }
}
