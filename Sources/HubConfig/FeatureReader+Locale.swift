import HubModel
import HubOperations

extension FeatureReader {
    /// `sendLocale` of a remote operation, checked with its URL: `{locale}` and `sendLocale`
    /// need `server.json` `locales`, and `sendLocale` cannot stand beside `forwardHeaders`
    /// naming `Accept-Language` (the upstream would get the client's raw header instead).
    package func readSendLocale(_ object: JSONObject, url: URLTemplate, at path: String) -> Bool {
        let sendLocale = reader.bool(object, "sendLocale", at: path) ?? false
        if context.locales == nil {
            if url.parts.contains(.locale) {
                reader.error("\(path).url", "{locale} needs server.json \"locales\" (the locales the server negotiates)")
            }
            if sendLocale {
                reader.error("\(path).sendLocale", "needs server.json \"locales\" (the locales the server negotiates)")
            }
        }
        if sendLocale, let forwarded = object["forwardHeaders"].flatMap({ value in
            value.stringValue.map { [$0] } ?? value.arrayValue?.compactMap(\.stringValue)
        }), forwarded.contains(where: { $0.lowercased() == "accept-language" }) {
            reader.error(
                "\(path).sendLocale",
                "sendLocale sends the negotiated locale as Accept-Language: drop Accept-Language from forwardHeaders")
        }
        return sendLocale
    }
}
