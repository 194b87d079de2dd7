import HubIdentity

/// Why `hub-server dev-token` made no token.
public struct DevelopmentTokenError: Error, CustomStringConvertible, Sendable {
    public let description: String
}

extension HubApplication {
    /// A token of the development issuer (`"jwks": "dev"`) for `subject` with `claims`, signed
    /// with the key in the config's data directory (made there on first use, as `serve` makes
    /// it), valid for `lifetimeSeconds`: what `hub-server dev-token` prints. Throws
    /// ``DevelopmentTokenError`` unless the config's identity provider is the development issuer
    /// (a token must never be minted for a real issuer).
    public static func developmentToken(
        configuration: LoadedConfiguration, subject: String, claims: [String: String] = [:], lifetimeSeconds: Int = 3600
    ) async throws -> String {
        let settings = configuration.settings
        guard let provider = settings.identity.developmentProvider else {
            throw DevelopmentTokenError(
                description:
                    "\(configuration.directory)/server.json does not name the development issuer (identity.jwt with \"jwks\": \"dev\"); dev-token signs only for it")
        }
        guard !subject.isEmpty else { throw DevelopmentTokenError(description: "give a subject: --subject alice") }
        guard case .development(let directory) = keySource(
            provider.jwks, configDirectory: configuration.directory, dataDirectory: settings.dataDirectory)
        else { throw DevelopmentTokenError(description: "the development issuer has no key directory") }
        return try await DevelopmentIssuer.token(
            subject: subject, claims: claims, issuer: provider.issuer, audience: provider.audiences[0], directory: directory,
            lifetimeSeconds: lifetimeSeconds)
    }
}
