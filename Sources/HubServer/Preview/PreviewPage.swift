import CCrypto
import Foundation

/// The browser preview's page, self-contained (inline CSS and JavaScript, no external URL):
/// `Resources/preview.html`, which `python3 Tools/contracts.py` assembles from `Preview/Page/`,
/// embedded in the binary (`PackageResources`).
enum PreviewPage {
    /// Where the server puts the feature list.
    static let featuresMarker = "<!-- hub:features -->\n"

    private static let parts: (before: String, after: String) = {
        let html = String(decoding: PackageResources.preview_html, as: UTF8.self)
        guard let marker = html.range(of: featuresMarker) else { preconditionFailure("preview.html has no \(featuresMarker)") }
        return (String(html[..<marker.lowerBound]), String(html[marker.upperBound...]))
    }()

    /// The page up to the feature list.
    static var beforeFeatures: String { parts.before }

    /// The page after the feature list.
    static var afterFeatures: String { parts.after }

    /// Only this page's inline style and script (by SHA-256, as a browser hashes them: the UTF-8
    /// text between the tags), same-origin requests, http(s) images.
    static let contentSecurityPolicy: String = {
        let html = String(decoding: PackageResources.preview_html, as: UTF8.self)
        return "default-src 'none'; script-src " + hash(inside: "script", of: html) + "; style-src "
            + hash(inside: "style", of: html)
            + "; img-src http: https: data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    }()

    /// `'sha256-BASE64'` of the text of the page's one `<tag>` element.
    private static func hash(inside tag: String, of html: String) -> String {
        guard let open = html.range(of: "<\(tag)>"), let close = html.range(of: "</\(tag)>", range: open.upperBound..<html.endIndex)
        else { preconditionFailure("preview.html has no <\(tag)>") }
        return "'sha256-" + Data(sha256(Array(html[open.upperBound..<close.lowerBound].utf8))).base64EncodedString() + "'"
    }

    /// SHA-256 by libcrypto.
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let done = bytes.withUnsafeBytes { input in
            digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        precondition(done == 1 && length == 32, "SHA-256 failed")
        return digest
    }
}
