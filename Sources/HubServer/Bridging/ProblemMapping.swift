import HubEngine
import HubHTTP
import HubOperations
import HubUpstream

/// Maps engine and operation errors onto statuses and stable problem codes (DESIGN.md).
enum ProblemMapping {
    /// The problem `error` is, for the errors of the layers below the endpoints: the engine's,
    /// the state store's, a view's load, the upstream client's; `nil` for any other (an
    /// ``HTTPError`` answers itself). ``ProblemMiddleware`` asks it for every error an endpoint throws.
    static func problem(for error: any Error) -> HTTPError? {
        switch error {
        case let engine as EngineError: return engineError(engine)
        case let state as StateError: return stateError(state)
        case let failure as ViewLoadError: return viewLoadError(failure)
        case let failure as ActionFailure: return actionError(failure.underlying)
        case is UpstreamError, is UnsafeURLError, is OperationTimeoutError: return operationError(error, operation: "operation")
        default: return nil
        }
    }

    static func engineError(_ error: EngineError) -> HTTPError {
        switch error.code {
        case .featureNotFound, .sessionNotFound, .actionNotFound, .componentNotFound:
            return HTTPError(.notFound, code: error.code.rawValue, detail: error.detail)
        case .noOperations, .noViewModel:
            return HTTPError(.internalServerError, code: error.code.rawValue, detail: error.detail)
        case .sessionRefused:
            return HTTPError(
                .tooManyRequests, code: error.code.rawValue, detail: error.detail,
                headers: ["Retry-After": String(error.retryAfterSeconds ?? 1)])
        case .revocationsUnavailable:
            return HTTPError(
                .serviceUnavailable, code: error.code.rawValue, detail: error.detail, headers: ["Retry-After": "1"])
        case .authenticationRequired:
            return authenticationRequired(error.detail)
        case .insufficientClaims:
            return HTTPError(
                .forbidden, code: error.code.rawValue, detail: error.detail,
                headers: ["WWW-Authenticate": "Bearer realm=\"hubserver\", error=\"insufficient_scope\""])
        }
    }

    /// 401 `authentication_required` with `WWW-Authenticate: Bearer realm="hubserver"` (RFC 6750 3:
    /// no credentials, no error code).
    static func authenticationRequired(_ detail: String) -> HTTPError {
        HTTPError(
            .unauthorized, code: "authentication_required", detail: detail,
            headers: ["WWW-Authenticate": "Bearer realm=\"hubserver\""])
    }

    /// A failed view: 502 for upstream failures, 504 for timeouts, 500 otherwise; the detail
    /// names the failing operation.
    static func viewLoadError(_ failure: ViewLoadError) -> HTTPError {
        let operation = "operation \(failure.operationIndex) (\(failure.operationName))"
        return operationError(failure.underlying, operation: operation)
    }

    /// What a `503 state_unavailable` body says, whatever the cause: the driver's text (host,
    /// port, role, the database's message) goes to the log only (``StateUnavailableLog``).
    static let stateUnavailableDetail = "the state store is unavailable"

    /// A state store error: 409 conflict (retries ran out), 413 too large, 503 unavailable
    /// (with `Retry-After`: nothing was written; ``stateUnavailableDetail``, never the driver's
    /// text), 503 outcome unknown (without: the write's answer was lost), 500 for a key the store
    /// cannot hold.
    static func stateError(_ error: StateError) -> HTTPError {
        switch error.code {
        case .conflict: return HTTPError(.conflict, code: error.code.rawValue, detail: error.detail)
        case .tooLarge: return HTTPError(.contentTooLarge, code: error.code.rawValue, detail: error.detail)
        case .unavailable:
            return HTTPError(
                .serviceUnavailable, code: error.code.rawValue, detail: stateUnavailableDetail,
                headers: ["Retry-After": "1"])
        case .outcomeUnknown:
            // No Retry-After: the write may have happened. Retry it with an Idempotency-Key.
            return HTTPError(
                .serviceUnavailable, code: "state_outcome_unknown",
                detail: "the state store's answer to a write was lost: it may or may not have happened; retry with the same Idempotency-Key")
        case .invalidKey: return HTTPError(.internalServerError, code: error.code.rawValue, detail: error.detail)
        case .authenticationRequired: return authenticationRequired(error.detail)
        }
    }

    static func operationError(_ error: any Error, operation: String) -> HTTPError {
        if let state = error as? StateError { return stateError(state) }
        // `context.user` read by an anonymous session's operation: the view needs a user.
        if let engine = error as? EngineError, engine.code == .authenticationRequired { return authenticationRequired(engine.detail) }
        if let upstream = error as? UpstreamError {
            if upstream.isTimeout {
                return HTTPError(.gatewayTimeout, code: "upstream_timeout", detail: "\(operation): \(upstream.description)")
            }
            return HTTPError(.badGateway, code: "upstream_error", detail: "\(operation): \(upstream.description)")
        }
        if let unsafe = error as? UnsafeURLError {
            return HTTPError(.badRequest, code: "unsafe_url", detail: "\(operation): \(unsafe.description)")
        }
        if let timeout = error as? OperationTimeoutError {
            return HTTPError(.gatewayTimeout, code: "operation_timeout", detail: "\(operation): \(timeout.description)")
        }
        return HTTPError(.internalServerError, code: "operation_failed", detail: "\(operation) failed")
    }

    /// What performing an action threw: an engine error (unknown action or component), an
    /// action's refusal of its input (422), or the handler's own failure (like an operation's).
    static func actionError(_ error: any Error) -> HTTPError {
        if let engine = error as? EngineError { return engineError(engine) }
        if let input = error as? ActionInputError { return HTTPError(.unprocessableContent, code: "invalid_body", detail: input.detail) }
        return operationError(error, operation: "action")
    }
}

/// An error performing an action threw (``ViewSession/perform(_:request:)``), marked so the
/// problem door maps it as an action's (``ProblemMapping/actionError(_:)``), not an operation's.
struct ActionFailure: Error {
    let underlying: any Error
}
