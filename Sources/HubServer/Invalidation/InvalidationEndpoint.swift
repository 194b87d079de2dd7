import Foundation
import HubEngine
import HubHTTP
import HubMetrics
import HubModel
import HubOperations

/// `POST /invalidate`: a signed request (``InvalidationSignature``) naming content that
/// changed at its source (``InvalidationRequest``). Checked in this order, each refusal counted
/// in `hub_invalidations_total{result}` and changing nothing: a body over 64 KiB is 413
/// `body_too_large`; a missing or wrong signature 401 `invalid_signature`; a signature whose
/// timestamp is more than 5 minutes off 401 `stale_signature`; then the body as JSON (415,
/// 400 `invalid_json`, 422 `invalid_body`, 422 `too_many_entries` past 1,000 entries). An
/// accepted one is applied here, published to the other replicas (PostgreSQL), and answered
/// `202 {"matched": {"cacheEntries": n, "sessions": n}}`. Routed only when
/// `invalidation.secrets` names a secret.
struct InvalidationEndpoint: Sendable {
    let invalidator: ContentInvalidator
    let signature: InvalidationSignature
    let jsonDepth: Int
    /// Seconds since the epoch (the signature's timestamp is compared with it).
    let now: @Sendable () -> Int64

    init(invalidator: ContentInvalidator, secrets: [String], jsonDepth: Int,
         now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) {
        self.invalidator = invalidator
        self.signature = InvalidationSignature(secrets: secrets)
        self.jsonDepth = jsonDepth
        self.now = now
    }

    nonisolated(nonsending) func invalidate(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let results = invalidator.results
        let body = request.body
        guard body.count <= InvalidationRequest.maximumBodyBytes else {
            results.labels("too_large").increment()
            throw HTTPError(
                .contentTooLarge, code: "body_too_large",
                detail: "an invalidation's body is at most \(InvalidationRequest.maximumBodyBytes) bytes")
        }
        switch signature.verify(
            timestamp: request.headers[InvalidationSignature.timestampHeader],
            signature: request.headers[InvalidationSignature.signatureHeader], body: body, now: now())
        {
        case .valid: break
        case .invalid:
            results.labels("invalid_signature").increment()
            throw HTTPError(
                .unauthorized, code: "invalid_signature",
                detail: "Hub-Signature must be sha256=<hex HMAC-SHA256 of \"<Hub-Signature-Timestamp>.<body>\"> under an invalidation secret")
        case .stale:
            results.labels("stale_signature").increment()
            throw HTTPError(
                .unauthorized, code: "stale_signature",
                detail: "Hub-Signature-Timestamp is more than \(InvalidationSignature.toleranceSeconds) seconds from the server's clock")
        }
        let invalidation: ContentInvalidation
        do {
            invalidation = try InvalidationRequest.invalidation(from: try JSONBody.object(from: request, maxDepth: jsonDepth))
        } catch let error as HTTPError where error.code == "too_many_entries" {
            results.labels("too_many_entries").increment()
            throw error
        } catch {
            throw error
        }
        results.labels("accepted").increment()
        let matched = await invalidator.apply(invalidation)
        if !(await invalidator.feed.publish(invalidation)) {
            invalidator.logger.log(
                .warning, "invalidation not published to the other replicas: the state store refused the write",
                ["request_id": .string(context.requestId)])
        }
        invalidator.log(invalidation, matched, origin: "request")
        let answer: JSONValue = ["matched": ["cacheEntries": .int(matched.cacheEntries), "sessions": .int(matched.sessions)]]
        return HTTPResponse(
            status: .accepted, headers: ["Content-Type": "application/json", "Cache-Control": "no-store"],
            body: .bytes(answer.jsonBytes))
    }
}
