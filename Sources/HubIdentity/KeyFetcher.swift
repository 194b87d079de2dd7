import Foundation
import HubUpstream

/// Reads a provider's JWKS document from its ``JWTProviderSettings/KeySource`` at each refresh:
/// `url` and `discover` with a GET through the ``UpstreamClient`` (`Cache-Control: no-cache`,
/// the client's cache bypassed, so a refresh always reaches the provider), `file` from disk,
/// `development` from the development key file (created if missing).
struct KeyFetcher: Sendable {
    let upstream: any UpstreamClient

    /// The JWKS document of `settings`' key source.
    func jwks(for settings: JWTProviderSettings) async throws(KeyLoadError) -> [UInt8] {
        switch settings.keys {
        case .url(let url):
            return try await get(url, what: "JWKS")
        case .discover:
            let url = Self.discoveryURL(issuer: settings.issuer)
            let document = try await get(url, what: "discovery document")
            guard let jwksURI = try? JSONDecoder().decode(Discovery.self, from: Data(document)).jwksURI else {
                throw KeyLoadError("discovery document \(url) has no jwks_uri")
            }
            return try await get(jwksURI, what: "JWKS")
        case .file(let path):
            return try Self.read(path)
        case .development(let directory):
            do {
                return try DevelopmentIssuer.publicJWKS(directory: directory)
            } catch {
                throw KeyLoadError("development key in \(directory): \(error)")
            }
        }
    }

    /// `<issuer without its trailing "/">/.well-known/openid-configuration` (OpenID Connect
    /// Discovery 1.0, section 4).
    static func discoveryURL(issuer: String) -> String {
        var base = Substring(issuer)
        while base.hasSuffix("/") { base = base.dropLast() }
        return base + "/.well-known/openid-configuration"
    }

    /// A GET of an `http(s)` URL: a 2xx, JSON-looking body of at most ``KeySnapshot/maximumBytes``.
    private func get(_ url: String, what: String) async throws(KeyLoadError) -> [UInt8] {
        let lowered = url.lowercased()
        guard lowered.hasPrefix("https://") || lowered.hasPrefix("http://") else {
            throw KeyLoadError("\(what) URL \(url) is not http(s)")
        }
        let request = UpstreamRequest(
            url: url,
            headers: [(name: "Accept", value: "application/json"), (name: "Cache-Control", value: "no-cache")],
            cachePolicy: .bypass)
        let response: UpstreamResponse
        do {
            response = try await upstream.send(request)
        } catch let error as UpstreamError {
            throw KeyLoadError("\(what) \(url): \(error.description)")
        } catch {
            throw KeyLoadError("\(what) \(url): \(error)")
        }
        guard response.isSuccess else { throw KeyLoadError("\(what) \(url): HTTP \(response.status)") }
        guard response.body.count <= KeySnapshot.maximumBytes else {
            throw KeyLoadError("\(what) \(url): larger than \(KeySnapshot.maximumBytes) bytes")
        }
        do {
            try UpstreamResponse.checkLooksLikeJSON(response.body)
        } catch {
            throw KeyLoadError("\(what) \(url): not JSON")
        }
        return response.body
    }

    /// The file at `path`, at most ``KeySnapshot/maximumBytes`` of it.
    private static func read(_ path: String) throws(KeyLoadError) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw KeyLoadError("JWKS file \(path) cannot be read") }
        defer { try? handle.close() }
        let data: Data?
        do {
            data = try handle.read(upToCount: KeySnapshot.maximumBytes + 1)
        } catch {
            throw KeyLoadError("JWKS file \(path) cannot be read")
        }
        let bytes = [UInt8](data ?? Data())
        guard bytes.count <= KeySnapshot.maximumBytes else {
            throw KeyLoadError("JWKS file \(path) is larger than \(KeySnapshot.maximumBytes) bytes")
        }
        return bytes
    }
}

/// The one member of an OpenID Provider's configuration read here.
private struct Discovery: Decodable {
    let jwksURI: String
    enum CodingKeys: String, CodingKey { case jwksURI = "jwks_uri" }
}
