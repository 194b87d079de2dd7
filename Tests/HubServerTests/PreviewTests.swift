import HubCrypto
import Foundation
import HubDemo
import HubModel
@testable import HubServer
import HubTestSupport
import Testing

/// `GET /preview`, the browser preview, over real sockets. What the page does
/// in a browser is `Tests/system/browser/preview_test.py` (`make test-browser`).
@Suite("Browser preview: GET /preview")
struct PreviewTests {
    static let plain = #"[ { "kind": "static", "json": { "body": [ { "id": "a", "text": { "title": "A" } } ] } } ]"#

    /// Two features a link can name (root, exact URI), one it cannot (pattern), and a title with markup.
    static func config(server: String = TestConfig.defaultServer) -> TestConfig {
        var config = TestConfig(server: server)
        config.feature("a", #"{ "id": "alpha", "title": "Alpha & <Omega>", "order": 1, "match": { "root": "hub:alpha" }, "operations": \#(plain) }"#)
        config.feature("b", #"{ "id": "beta", "title": "Beta", "order": 2, "match": { "uri": ["hub:beta x", "hub:beta"] }, "operations": \#(plain) }"#)
        config.feature("c", #"{ "id": "gamma", "title": "Gamma", "order": 3, "match": { "pattern": "hub:g[0-9]+" }, "operations": \#(plain) }"#)
        return config
    }

    @Test("GET /preview: HTML listing every feature, titles escaped, links to /preview?uri=")
    func featureList() async throws {
        try await withHub(Self.config()) { client, _ in
            let response = try await client.get("/preview")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "text/html; charset=utf-8")
            #expect(response.header("Cache-Control") == "no-cache")
            #expect(response.header("X-Content-Type-Options") == "nosniff")
            let html = response.text
            #expect(html.hasPrefix("<!doctype html>"))
            #expect(html.contains(#"<ul class="feature-list">"#))
            #expect(html.contains(#"<a class="feature-link" href="/preview?uri=hub%3Aalpha">"#), "root: the root")
            #expect(html.contains(#"href="/preview?uri=hub%3Abeta">"#), "exact URIs: the first in order")
            #expect(html.contains("Alpha &amp; &lt;Omega&gt;"), "the title is escaped")
            #expect(!html.contains("<Omega>"))
            #expect(html.contains(#"<span class="feature-static"><span class="feature-title">Gamma</span>"#), "a pattern has no link")
            #expect(html.contains("gamma · pattern hub:g[0-9]+"))
        }
    }

    @Test("GET /preview?uri=U: the page for a view; HEAD answers the same head without a body")
    func viewPageAndHead() async throws {
        try await withHub(Self.config()) { client, _ in
            let page = try await client.get("/preview?uri=hub:alpha:deeper")
            #expect(page.status == 200)
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            #expect(page.text.contains("<script>") && page.text.contains("<style>"))
            for target in ["/preview", "/preview?uri=hub:alpha"] {
                let get = try await client.get(target)
                let head = try await client.send("HEAD", target)
                #expect(head.status == 200, "\(target)")
                #expect(head.body.isEmpty)
                #expect(head.header("Content-Type") == get.header("Content-Type"))
                #expect(head.header("Content-Length") == String(get.body.count), "\(target)")
                #expect(head.header("Content-Security-Policy") == get.header("Content-Security-Policy"))
            }
        }
    }

    @Test("the page is self-contained: no external URL, a CSP that allows only its own inline code")
    func selfContained() async throws {
        try await withHub(Self.config()) { client, _ in
            let response = try await client.get("/preview?uri=hub:alpha")
            let html = response.text
            #expect(!html.contains("http://") && !html.contains("https://"), "no absolute URL (no CDN)")
            #expect(!html.contains("src=\"//") && !html.contains("href=\"//"), "no scheme-relative URL")
            #expect(!html.contains("<script src") && !html.contains("<link rel=\"stylesheet\""), "nothing loaded besides the page")
            let policy = try #require(response.header("Content-Security-Policy"))
            #expect(policy.hasPrefix("default-src 'none'; script-src 'sha256-"))
            #expect(policy.contains("style-src 'sha256-") && policy.contains("connect-src 'self'"))
            #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"))
            #expect(!html.contains("innerHTML") && !html.contains("insertAdjacentHTML") && !html.contains("eval("),
                    "model text never becomes markup")
        }
    }

    @Test("the CSP's images: https: and data: on any host; http: too only on a loopback Host (no mixed content behind HTTPS)")
    func imagePolicyByHost() async throws {
        try await withHub(Self.config()) { client, _ async throws in
            /// The `img-src` sources of the page's policy for a request with `Host: host`.
            func imageSources(_ host: String) async throws -> [String] {
                let response = try await client.get("/preview?uri=hub:alpha", headers: [("Host", host)])
                #expect(response.status == 200, "\(host)")
                let policy = try #require(response.header("Content-Security-Policy"), "\(host)")
                let directive = try #require(policy.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
                    .first { $0.hasPrefix("img-src ") }, "\(host): \(policy)")
                #expect(policy.hasPrefix("default-src 'none'; script-src 'sha256-"), "\(host)")
                return directive.split(separator: " ").dropFirst().map(String.init)
            }
            for host in ["hub.example.com", "hub.example.com:443", "localhost.example.com", "127.0.0.2", "[::2]:8080",
                         "127.0.0.1.nip.io", "localhost:80x"] {
                #expect(try await imageSources(host) == ["https:", "data:"], "\(host): no plain-HTTP image")
            }
            for host in ["127.0.0.1", "127.0.0.1:8080", "localhost", "LocalHost:8080", "[::1]", "[::1]:8080"] {
                #expect(try await imageSources(host) == ["http:", "https:", "data:"], "\(host): loopback, http: images too")
            }
        }
        #expect(!PreviewPage.isLoopback(host: nil), "no Host (HTTP/1.0) is not loopback")
        #expect(!PreviewPage.isLoopback(host: "[::1"))
    }

    @Test("the page is Preview/Page/ assembled: preview.html with the CSS and the three scripts inlined, the feature list at its marker; the CSP hashes its inline style and script")
    func pageAndPolicyFromTheFiles() async throws {
        // SHA-256 known answer (FIPS 180-2, "abc").
        #expect(SHA256.digest(Array("abc".utf8)).map { String(format: "%02x", $0) }.joined()
            == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        func file(_ name: String) throws -> String { try BuildContext.read("Sources/HubServer/Endpoints/Preview/Page/" + name) }
        let template = try file("preview.html")
        let css = try file("preview.css")
        let scripts = try ["preview-render.js", "preview-session.js", "preview-panel.js"].map(file)
        // Each marker once; nothing inlined can close its element early; no external URL.
        for marker in [PreviewPage.styleMarker, PreviewPage.scriptMarker, PreviewPage.featuresMarker] {
            #expect(template.components(separatedBy: marker).count == 2, "\(marker) once in preview.html")
        }
        #expect(!css.lowercased().contains("</style"))
        #expect(!scripts.contains { $0.lowercased().contains("</script") })
        for text in [template, css] + scripts {
            #expect(!text.contains("http://") && !text.contains("https://") && !text.contains("//cdn"), "no external URL")
        }
        let script = "(() => {\n\"use strict\";\n\n" + scripts.joined(separator: "\n") + "})();"
        let page = template.replacingOccurrences(of: PreviewPage.styleMarker, with: css)
            .replacingOccurrences(of: PreviewPage.scriptMarker, with: script + "\n")
        #expect(PreviewPage.html == page)
        try await withHub(Self.config()) { client, _ in
            let response = try await client.get("/preview")
            let marker = try #require(page.range(of: PreviewPage.featuresMarker))
            #expect(response.text.hasPrefix(String(page[..<marker.lowerBound])))
            #expect(response.text.hasSuffix(String(page[marker.upperBound...])))
            let policy = try #require(response.header("Content-Security-Policy"))
            for (tag, text) in [("script", script), ("style", css)] {
                let open = try #require(response.text.range(of: "<\(tag)>"))
                let close = try #require(response.text.range(of: "</\(tag)>"))
                let inline = String(response.text[open.upperBound..<close.lowerBound])
                #expect(inline.contains(text), "\(tag) inlined whole")
                let digest = Data(SHA256.digest(Array(inline.utf8)))
                #expect(policy.contains("\(tag)-src 'sha256-\(digest.base64EncodedString())'"), "\(tag)")
            }
        }
    }

    @Test("bad queries and other methods answer problems as elsewhere")
    func problems() async throws {
        try await withHub(Self.config()) { client, _ in
            try expectProblem(try await client.get("/preview?uri="), 400, "invalid_uri")
            try expectProblem(try await client.get("/preview?uri=%01"), 400, "invalid_uri")
            try expectProblem(try await client.get("/preview?uri=hub:alpha&uri=hub:beta"), 400, "duplicate_parameter")
            try expectProblem(try await client.get("/preview?uri=hub:nope"), 404, "feature_not_found")
            try expectProblem(try await client.get("/preview?uri=%ZZ"), 400, "invalid_query")
            try expectProblem(try await client.get("/preview/x"), 404, "route_not_found")
            #expect(try await client.send("HEAD", "/preview?uri=hub:nope").status == 404)
            let post = try await client.post("/preview", "{}")
            try expectProblem(post, 405, "method_not_allowed")
            #expect(post.header("Allow") == "GET, HEAD")
        }
    }

    @Test("preview.enabled false: /preview is not a route; a wrong type is a config error")
    func setting() async throws {
        let off = TestConfig.defaultServer.replacingOccurrences(of: #""host""#, with: #""preview": { "enabled": false }, "host""#)
        try await withHub(Self.config(server: off)) { client, app in
            try expectProblem(try await client.get("/preview"), 404, "route_not_found")
            #expect(app.configuration.settings.previewEnabled == false)
            #expect(try await client.get("/features").status == 200)
        }
        let wrong = TestConfig.defaultServer.replacingOccurrences(of: #""host""#, with: #""preview": { "enabled": "yes", "x": 1 }, "host""#)
        let directory = try Self.config(server: wrong).write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let error = #expect(throws: ConfigurationError.self) { _ = try ConfigLoader(environment: [:]).load(directory: directory) }
        let issues = try #require(error).issues
        #expect(issues.contains { $0.file == "server.json" && $0.path == "$.preview.enabled" && $0.severity == .error }, "\(issues)")
        #expect(issues.contains { $0.path == "$.preview.x" && $0.severity == .warning }, "\(issues)")
    }

    @Test("GET /features lists the toggles a feature's chain reads (the preview's panel), unless overrides are off")
    func featureToggles() async throws {
        try await DemoConfigTests.withDemoHub {
            client, _ in
            let features = try await client.get("/features").json()["features"]?.arrayValue ?? []
            let home = try #require(features.first { $0["id"]?.stringValue == "home" })
            let toggles = try #require(home["toggles"]?.arrayValue)
            #expect(toggles.count == 1)
            #expect(toggles.first?["name"]?.stringValue == "homeLayout")
            #expect(toggles.first?["values"]?.arrayValue?.compactMap(\.stringValue) == ["list", "grid"])
            #expect(toggles.first?["default"]?.stringValue == "list")
            #expect(toggles.first?["rollout"] == nil, "the rollout is not listed")
            #expect(features.first { $0["id"]?.stringValue == "todo" }?["toggles"] == nil)
        }
        var config = Self.config(server: #"{ "host": "127.0.0.1", "port": 0, "allowToggleOverride": false, "log": { "level": "error" } }"#)
        config["toggles.json"] = #"{ "layout": { "values": ["a", "b"], "default": "a" } }"#
        config.feature("t", #"""
            { "id": "t", "title": "T", "match": { "root": "hub:t" },
              "operations": [ { "kind": "variant", "toggle": "layout", "variants": { "a": \#(Self.plain), "b": [] } } ] }
            """#)
        try await withHub(config) { client, _ in
            let features = try await client.get("/features").json()["features"]?.arrayValue ?? []
            #expect(features.first { $0["id"]?.stringValue == "t" } != nil)
            #expect(features.allSatisfy { $0["toggles"] == nil }, "overrides off: no toggles listed")
        }
    }

    @Test("a config reload: the list follows the features; preview.enabled and allowToggleOverride as reloaded")
    func followsReload() async throws {
        var config = Self.config()
        config["toggles.json"] = #"{ "layout": { "values": ["a", "b"], "default": "a" } }"#
        config.feature("t", #"""
            { "id": "t", "title": "T", "match": { "root": "hub:t" },
              "operations": [ { "kind": "variant", "toggle": "layout", "variants": { "a": \#(Self.plain), "b": [] } } ] }
            """#)
        let directory = try config.write()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withHub(directory: directory) { client, app in
            #expect(try await client.get("/preview?uri=hub:delta").status == 404)
            let delta = #"{ "id": "delta", "title": "Delta", "order": 4, "match": { "root": "hub:delta" }, "operations": \#(Self.plain) }"#
            try Data(delta.utf8).write(to: URL(fileURLWithPath: directory + "/features/d.json"))
            let server = #"{ "host": "127.0.0.1", "port": 0, "allowToggleOverride": false, "preview": { "enabled": false }, "log": { "level": "error" } }"#
            try Data(server.utf8).write(to: URL(fileURLWithPath: directory + "/server.json"))
            let result = await app.reloadConfiguration(trigger: "test")
            #expect(result.succeeded, "\(result.issues)")
            #expect(result.restartRequired.contains("preview"), "routes are built at start-up")
            let list = try await client.get("/preview")
            #expect(list.status == 200, "still served until a restart")
            #expect(list.text.contains(#"href="/preview?uri=hub%3Adelta""#))
            #expect(try await client.get("/preview?uri=hub:delta").status == 200)
            let features = try await client.get("/features").json()["features"]?.arrayValue ?? []
            #expect(features.allSatisfy { $0["toggles"] == nil }, "allowToggleOverride applies live")
        }
    }

    @Test("HTMLText: escaping and percent-encoding")
    func htmlText() {
        #expect(HTMLText.escape(#"<a href="x" title='y'>&amp;</a>"#) == "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;")
        #expect(HTMLText.escape("plain · text") == "plain · text")
        #expect(HTMLText.percentEncoded("hub:home?q=a b&c") == "hub%3Ahome%3Fq%3Da%20b%26c")
        #expect(HTMLText.percentEncoded("ö-._~") == "%C3%B6-._~")
    }
}
