import HubCrypto
import Foundation

/// The browser preview's page, self-contained (inline CSS and JavaScript, no external URL),
/// assembled on first use from the files of `Preview/Page/` that SwiftPM embeds in the binary
/// (`PackageResources`): `preview.html` with `preview.css` at its `/* hub:style */` line and the
/// three scripts, in one strict-mode function, at its `/* hub:script */` line. The server puts
/// the feature list at `<!-- hub:features -->`.
enum PreviewPage {
    /// Where the server puts the feature list.
    static let featuresMarker = "<!-- hub:features -->\n"
    /// Where the style goes in `preview.html`.
    static let styleMarker = "/* hub:style */\n"
    /// Where the script goes in `preview.html`.
    static let scriptMarker = "/* hub:script */\n"

    /// The inline style: `preview.css`.
    static let style = String(decoding: PackageResources.preview_css, as: UTF8.self)

    /// The inline script: the three scripts, in this order, in one strict-mode function.
    static let script: String = {
        let parts = [PackageResources.preview_render_js, PackageResources.preview_session_js, PackageResources.preview_panel_js]
        return "(() => {\n\"use strict\";\n\n" + parts.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n") + "})();"
    }()

    /// The whole page, with the features marker where the list goes.
    static let html: String = {
        var html = String(decoding: PackageResources.preview_html, as: UTF8.self)
        for (marker, text) in [(styleMarker, style), (scriptMarker, script + "\n")] {
            guard let range = html.range(of: marker) else { preconditionFailure("preview.html has no \(marker)") }
            html.replaceSubrange(range, with: text)
        }
        return html
    }()

    private static let parts: (before: String, after: String) = {
        guard let marker = html.range(of: featuresMarker) else { preconditionFailure("preview.html has no \(featuresMarker)") }
        return (String(html[..<marker.lowerBound]), String(html[marker.upperBound...]))
    }()

    /// The page up to the feature list.
    static var beforeFeatures: String { parts.before }

    /// The page after the feature list.
    static var afterFeatures: String { parts.after }

    /// Only this page's inline style and script (by SHA-256, as a browser hashes them: the UTF-8
    /// text between the tags, hashed here from the assembled page), same-origin requests,
    /// `https:` and `data:` images: no plain-HTTP image (mixed content on an HTTPS deployment).
    static let contentSecurityPolicy = policy(images: "https: data:")

    /// ``contentSecurityPolicy`` that also allows `http:` images: for a page asked for on a
    /// loopback host (development, where upstreams often serve images over plain HTTP).
    static let loopbackContentSecurityPolicy = policy(images: "http: https: data:")

    /// The policy for a request whose `Host` field is `host`: ``loopbackContentSecurityPolicy``
    /// when it names a loopback host (``isLoopback(host:)``), ``contentSecurityPolicy`` otherwise.
    static func contentSecurityPolicy(host: String?) -> String {
        isLoopback(host: host) ? loopbackContentSecurityPolicy : contentSecurityPolicy
    }

    /// Whether a `Host` field value names `127.0.0.1`, `localhost` (any case) or `[::1]`, with or
    /// without a port. No `Host` (HTTP/1.0) is not loopback.
    static func isLoopback(host: String?) -> Bool {
        guard let host else { return false }
        let name: Substring
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            name = host[...close]
        } else {
            name = host.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        }
        let rest = host[name.endIndex...]
        guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy { $0.isASCII && $0.isNumber }) else { return false }
        switch name.lowercased() {
        case "127.0.0.1", "localhost", "[::1]": return true
        default: return false
        }
    }

    private static func policy(images: String) -> String {
        "default-src 'none'; script-src " + hash(inside: "script") + "; style-src " + hash(inside: "style")
            + "; img-src " + images + "; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    }

    /// `'sha256-BASE64'` of the text of the page's one `<tag>` element.
    private static func hash(inside tag: String) -> String {
        guard let open = html.range(of: "<\(tag)>"), let close = html.range(of: "</\(tag)>", range: open.upperBound..<html.endIndex)
        else { preconditionFailure("preview.html has no <\(tag)>") }
        return "'sha256-" + Data(SHA256.digest(Array(html[open.upperBound..<close.lowerBound].utf8))).base64EncodedString() + "'"
    }
}
