import HubMetrics

/// The identity families: bearer tokens verified and provider keys loaded (`identity.jwt`).
enum IdentityMetrics {
    /// `hub_identity_verifications_total{result}`: `ok`, or why the token was refused.
    static func verifications(on registry: MetricsRegistry) -> MetricFamily<Counter> {
        registry.counter(
            "hub_identity_verifications_total", help: "Bearer tokens verified, by result: ok, or why the token was refused.",
            labels: ["result"])
    }

    /// `hub_identity_tokens_reused_total`: bearer tokens accepted again under their lease.
    static func reusedTokens(on registry: MetricsRegistry) -> Counter {
        registry.counter(
            "hub_identity_tokens_reused_total",
            help: "Bearer tokens accepted again without a signature check: verified lately, keys and times unchanged (also counted ok).").labels()
    }

    /// `hub_identity_jwks_refreshes_total{result}`: `ok` or `error`.
    static func keyRefreshes(on registry: MetricsRegistry) -> MetricFamily<Counter> {
        registry.counter(
            "hub_identity_jwks_refreshes_total", help: "Loads of identity providers' keys (JWKS), by result: ok or error.",
            labels: ["result"])
    }
}
