import HubOperations
import HubEngine
import HubHTTP

/// `GET /preview`: the browser preview (docs/PREVIEW.md).
///
/// Without `uri`, the page lists the features (what `GET /features` describes, with a link to
/// each one a view URI can name); with `uri`, the page renders that view live. The page is
/// self-contained and only calls the public API from the browser, so it shows nothing the JSON
/// API does not. A `uri` is checked as `GET /view` checks it (400 `invalid_uri`,
/// `duplicate_parameter`; 404 `feature_not_found`), so a bad link fails before a page loads.
/// Registered only when `preview.enabled` (the default) is true.
struct PreviewEndpoint {
    let shared: SharedServices

    nonisolated(nonsending) func page(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        if let uri = try QueryParameters.single("uri", in: request) {
            let viewURI = try QueryParameters.viewURI(uri)
            guard shared.engine.features.feature(for: viewURI) != nil else {
                throw HTTPError(.notFound, code: "feature_not_found", detail: "no feature serves '\(viewURI)'")
            }
        }
        var html = PreviewPage.beforeFeatures
        html += Self.featureList(shared.engine.features.features)
        html += Self.localeList(shared.bridge.locales?.settings)
        html += PreviewPage.afterFeatures
        var headers: HTTPHeaders = ["Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache"]
        headers.add(name: "Content-Security-Policy", value: PreviewPage.contentSecurityPolicy(host: request.headers["Host"]))
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        headers.add(name: "Referrer-Policy", value: "no-referrer")
        // An ETag for revalidation (304): the page changes only with the features a reload installs.
        return HTTPResponse(status: .ok, headers: headers, body: .representation(Representation(bytes: Array(html.utf8))))
    }

    /// The supported locales (`server.json` `locales`) for the page's `Hub-Locale` picker, as a
    /// hidden element's data: `<div id="hub-locales" data-locales="en de" hidden>`; nothing
    /// without locales. Tags are letters, digits and `-` (checked when loaded), escaped anyway.
    static func localeList(_ locales: LocaleSettings?) -> String {
        guard let locales else { return "" }
        return "<div id=\"hub-locales\" data-locales=\"" + HTMLText.escape(locales.supported.joined(separator: " "))
            + "\" data-default=\"" + HTMLText.escape(locales.defaultLocale) + "\" hidden></div>\n"
    }

    /// The features as an HTML list, every text escaped: a link to `/preview?uri=` for a feature
    /// whose predicate names a URI (root or exact), its id and predicate otherwise.
    static func featureList(_ features: [Feature]) -> String {
        var html = "<ul class=\"feature-list\">\n"
        for feature in features {
            let title = "<span class=\"feature-title\">" + HTMLText.escape(feature.title) + "</span>"
            let meta = "<span class=\"feature-meta\">"
                + HTMLText.escape(feature.identifier + " · " + feature.predicate.description) + "</span>"
            if let uri = feature.predicate.exampleURI {
                let href = "/preview?uri=" + HTMLText.percentEncoded(uri)
                html += "<li><a class=\"feature-link\" href=\"" + HTMLText.escape(href) + "\">" + title + meta + "</a></li>\n"
            } else {
                html += "<li><span class=\"feature-static\">" + title + meta + "</span></li>\n"
            }
        }
        return html + "</ul>\n"
    }
}
