import HubLogging
import Foundation
import HubEngine
import HubIdentity
import HubMetrics
import HubModel
import HubUpstream

extension HubApplication {
    /// The verifier of `identity.jwt`'s providers, with its metrics; `nil` when none is
    /// configured. Keys come through `upstream` (libcurl, no HTTP cache: a refresh always asks
    /// the provider); `file:` paths are relative to `configDirectory`, the development issuer's
    /// key lives in `dataDirectory`.
    static func makeVerifier(
        _ identity: IdentitySettings, configDirectory: String, dataDirectory: String, upstream: any UpstreamClient,
        registry: MetricsRegistry, logger: JSONLogger
    ) -> TokenVerifier? {
        guard !identity.providers.isEmpty else { return nil }
        let verified = IdentityMetrics.verifications(on: registry)
        let reused = IdentityMetrics.reusedTokens(on: registry)
        let refreshed = IdentityMetrics.keyRefreshes(on: registry)
        // Every label shows from the start (a dashboard's rate() needs the zero).
        for result in ["ok"] + VerificationFailure.allCases.map(\.rawValue) { _ = verified.labels(result) }
        for result in ["ok", "error"] { _ = refreshed.labels(result) }
        let events = IdentityEvents(
            verified: { verified.labels($0).increment() },
            reused: { reused.increment() },
            refreshed: { refreshed.labels($0 ? "ok" : "error").increment() },
            log: { logger.log(.warning, "identity provider keys", ["detail": .string($0)]) })
        let providers = identity.providers.map { provider in
            JWTProviderSettings(
                issuer: provider.issuer, audiences: provider.audiences,
                keys: keySource(provider.jwks, configDirectory: configDirectory, dataDirectory: dataDirectory),
                algorithms: provider.algorithms, leewaySeconds: provider.leewaySeconds, refreshSeconds: provider.refreshSeconds)
        }
        return TokenVerifier(providers: providers, upstream: upstream, events: events)
    }

    /// Where a provider's keys come from, as `jwks` says.
    static func keySource(_ jwks: String, configDirectory: String, dataDirectory: String) -> JWTProviderSettings.KeySource {
        if jwks == IdentitySettings.developmentKeys { return .development(directory: absolute(dataDirectory)) }
        if jwks == "discover" { return .discover }
        if jwks.hasPrefix("file:") {
            let path = String(jwks.dropFirst("file:".count))
            return .file(path.hasPrefix("/") ? path : configDirectory + "/" + path)
        }
        return .url(jwks)
    }

    private static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    /// `/ready`'s `"identity"`: each provider's issuer, key count, last load and last error.
    static func readiness(of verifier: TokenVerifier) -> JSONValue {
        let formatter = ISO8601DateFormatter()
        let providers: [JSONValue] = verifier.status().map { status in
            var object: JSONObject = ["issuer": .string(status.issuer), "keys": .int(status.keys)]
            object["refreshedAt"] = status.refreshedAt.map { .string(formatter.string(from: $0)) } ?? .null
            object["error"] = status.error.map { .string($0) } ?? .null
            return .object(object)
        }
        return ["providers": .array(providers)]
    }
}
