import HubCrypto
import HubEngine
import HubHTTP
import HubModel
import HubPrimitives

/// `Idempotency-Key` on `POST /action` (draft-ietf-httpapi-idempotency-key-header): the first
/// answer for a key is kept with the session's state (`session/<id>/hub:idempotency:<hash of
/// the key>`, so on every replica sharing the store) for 24 hours, with the SHA-256 of the
/// request body (never the body). A retry with the same key and body gets that answer again
/// (`Idempotent-Replayed: true`) and performs nothing; the same key with another body is 422
/// `idempotency_key_reused`; one arriving while the first still runs is 409
/// `idempotency_key_in_use`. Keys are per session.
///
/// While an action runs its key holds a lease of ``leaseSeconds``: a process that dies (or a
/// store that cannot take the answer) frees the key when the lease ends. An action that fails
/// frees it at once (the retry performs it), unless the store's answer to one of its writes was
/// lost (`state_outcome_unknown`): then the key stays in use until the lease ends.
enum IdempotentActions {
    static let headerName = "Idempotency-Key"
    /// Longest key accepted, in bytes (after removing a string's quotes and escapes).
    static let maximumKeyBytes = 255
    /// How long an answer is kept.
    static let answerSeconds: Int64 = 86_400
    /// How long a running action holds its key when it never finishes (a process that died).
    static let leaseSeconds: Int64 = 60
    /// The response fields an answer keeps (with its status and body).
    static let keptHeaders = ["Content-Type", "Cache-Control", HubHeaderName.session, HubHeaderName.version, HubHeaderName.stale, "ETag"]

    /// A key taken for one request: the state key its record lives under and that record's version.
    struct Claim: Sendable {
        let key: StateKey
        let version: Int64
        let digest: String
    }

    /// What a request with a key does: perform the action (the key is now its own), answer the
    /// kept answer, or (an answer too large to keep) answer whether it was performed with the
    /// session's view as it is now.
    enum Start: Sendable {
        case claimed(Claim)
        case replay(HTTPResponse)
        case replayLatest(performed: Bool)
    }

    /// The key the request names, `nil` when it names none. A structured-field string
    /// (`"k1"`, RFC 8941) or a bare token (`k1`); anything else, an empty key, more than one
    /// field or a key over ``maximumKeyBytes`` is 400 `invalid_idempotency_key`.
    static func key(of request: HTTPRequest) throws -> String? {
        let values = request.headers.values(for: headerName)
        guard !values.isEmpty else { return nil }
        guard values.count == 1, let key = parse(values[0]) else {
            throw HTTPError(
                .badRequest, code: "invalid_idempotency_key",
                detail: "Idempotency-Key must be one structured-field string (\"k1\") or token of 1 to \(maximumKeyBytes) bytes")
        }
        return key
    }

    /// The key a field value names: an sf-string's content, or an sf-token; `nil` otherwise.
    static func parse(_ field: String) -> String? {
        let bytes = Array(field.trimmingOWS().utf8)
        guard let first = bytes.first else { return nil }
        var key: [UInt8] = []
        if first == UInt8(ascii: "\"") {
            guard bytes.count >= 2, bytes.last == UInt8(ascii: "\"") else { return nil }
            var index = 1
            while index < bytes.count - 1 {
                var byte = bytes[index]
                if byte == UInt8(ascii: "\\") {
                    index += 1
                    guard index < bytes.count - 1, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "\\")
                    else { return nil }
                    byte = bytes[index]
                } else if byte < 0x20 || byte > 0x7E || byte == UInt8(ascii: "\"") {
                    return nil
                }
                key.append(byte)
                index += 1
            }
        } else {
            // sf-token: ALPHA or "*", then tchar, ":" or "/".
            guard StructuredField.isToken(String(decoding: bytes, as: UTF8.self)) else { return nil }
            key = bytes
        }
        guard !key.isEmpty, key.count <= maximumKeyBytes else { return nil }
        return String(decoding: key, as: UTF8.self)
    }

    /// Takes `key` for this request on session `session`, or answers the kept answer (409 or
    /// 422 as above). Store errors map as any state error (503 `state_unavailable`...).
    static func start(key: String, body: [UInt8], session: String, store: any StateStore, now: Int64) async throws -> Start {
        let digest = hex(SHA256.digest(body))
        let stateKey = try stateKey(for: key, session: session)
        let running: JSONValue = ["state": "running", "digest": .string(digest)]
        for _ in 0..<3 {
            do {
                let version = try await store.write(
                    stateKey, bytes: running.jsonBytes, shape: 1, expected: 0, expiresAt: now + leaseSeconds, now: now)
                return .claimed(Claim(key: stateKey, version: version, digest: digest))
            } catch where error.code == .conflict {
                // Taken: by this request's first attempt (done, or still running), or another body.
            } catch {
                throw error  // a problem (ProblemMiddleware)
            }
            let record: StateRecord?
            record = try await store.read(stateKey, now: now)
            guard let record else { continue }  // expired or freed meanwhile: take it
            let kept = try? JSONParser().parse(record.bytes)
            guard kept?["digest"]?.stringValue == digest else {
                throw HTTPError(
                    .unprocessableContent, code: "idempotency_key_reused",
                    detail: "this Idempotency-Key was used with another request body on this session")
            }
            if let kept, kept["state"]?.stringValue == "done", kept["body"] == nil, let performed = kept["performed"]?.boolValue {
                return .replayLatest(performed: performed)
            }
            guard let kept, kept["state"]?.stringValue == "done", let replay = replay(kept) else {
                throw HTTPError(
                    .conflict, code: "idempotency_key_in_use",
                    detail: "a request with this Idempotency-Key is still being processed; retry once it has answered")
            }
            return .replay(replay)
        }
        throw HTTPError(
            .conflict, code: "idempotency_key_in_use",
            detail: "a request with this Idempotency-Key is still being processed; retry once it has answered")
    }

    /// Keeps `response` (status, kept headers, body) as the key's answer for ``answerSeconds``;
    /// an answer over `maxBytes` (`state.maxValueBytes`) keeps only whether the action was
    /// `performed` (a replay then carries the session's view as it is then). When the store
    /// cannot take it, the key stays taken until its lease ends.
    static func finish(
        _ claim: Claim, response: HTTPResponse, body: [UInt8], performed: Bool, maxBytes: Int, store: any StateStore, now: Int64
    ) async {
        var headers: [JSONValue] = []
        for name in keptHeaders {
            for value in response.headers.values(for: name) { headers.append([.string(name), .string(value)]) }
        }
        let answer: JSONValue = [
            "state": "done", "digest": .string(claim.digest), "performed": .bool(performed),
            "status": .int(response.status.code), "headers": .array(headers),
            "body": .string(String(decoding: body, as: UTF8.self)),
        ]
        var bytes = answer.jsonBytes
        if bytes.count > maxBytes {
            let outline: JSONValue = ["state": "done", "digest": .string(claim.digest), "performed": .bool(performed)]
            bytes = outline.jsonBytes
        }
        _ = try? await store.write(claim.key, bytes: bytes, shape: 1, expected: claim.version, expiresAt: now + answerSeconds, now: now)
    }

    /// Frees the key after a failed action (the retry performs it), except when a write's
    /// outcome is unknown: then it stays taken until its lease ends.
    static func abandon(_ claim: Claim, after error: any Error, store: any StateStore) async {
        if let state = error as? StateError, state.code == .outcomeUnknown { return }
        if let http = error as? HTTPError, http.code == "state_outcome_unknown" { return }
        _ = try? await store.delete(claim.key, expected: claim.version)
    }

    /// The state key of `key` on session `session`: hashed, so any key fits.
    static func stateKey(for key: String, session: String) throws -> StateKey {
        try StateKey("hub:idempotency:" + hex(SHA256.digest(Array(key.utf8))), in: .session, sessionID: session)
    }

    /// The kept answer, marked as replayed.
    private static func replay(_ kept: JSONValue) -> HTTPResponse? {
        guard let status = kept["status"]?.intValue, let body = kept["body"]?.stringValue,
            let headers = kept["headers"]?.arrayValue
        else { return nil }
        var response = HTTPResponse(status: HTTPStatus(code: status), headers: [:], body: .bytes(Array(body.utf8)))
        for pair in headers {
            guard let fields = pair.arrayValue, fields.count == 2, let name = fields[0].stringValue,
                let value = fields[1].stringValue
            else { continue }
            response.headers.add(name: name, value: value)
        }
        response.headers.add(name: "Idempotent-Replayed", value: "true")
        return response
    }

    /// Lowercase hexadecimal of `bytes`.
    static func hex(_ bytes: [UInt8]) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(Hex.digit(byte >> 4))
            text.append(Hex.digit(byte & 0x0F))
        }
        return String(decoding: text, as: UTF8.self)
    }
}
