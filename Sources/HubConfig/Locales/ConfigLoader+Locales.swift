import HubOperations
extension ConfigLoader {
    /// `{locale}` in a remote action's URL needs `server.json` `locales` (as in a remote
    /// operation's, ``FeatureReader/readSendLocale(_:url:at:)``): without them it would always
    /// expand to nothing.
    package func checkLocalePlaceholders(
        _ actions: [(namespace: String, definition: ActionDefinition)], locales: LocaleSettings?, reader: ConfigReader
    ) {
        guard locales == nil else { return }
        for (namespace, definition) in actions {
            guard case .remote(let url, _, _, _, _) = definition, url.parts.contains(.locale) else { continue }
            reader.error(
                "\(ConfigReader.join("$", namespace)).url", "{locale} needs server.json \"locales\" (the locales the server negotiates)")
        }
    }
}
