import HubModel

/// `components.killSwitches` of `server.json`: components pulled from client versions without
/// a release. A rule `{"component": "default:card", "client": "ios", "below": "5.2"}` gives every
/// client whose `Hub-Client` is `ios/` a version below 5.2 the card's fallback component, as if
/// it had not listed the card in `Hub-Components` (counted with `reason="kill_switch"`).
/// A config reload replaces the rules; the next response of every session follows them.
package struct KillSwitches: Sendable, Equatable {
    /// One rule.
    package struct Rule: Sendable, Equatable {
        package let component: ComponentIdentifier
        /// Lowercased platform.
        package let platform: String
        /// Clients of ``platform`` below this version get the fallback.
        package let below: SemanticVersion
    }

    /// At most this many rules are read (a longer list is a config error).
    package static let maximumRules = 1000

    package let rules: [Rule]

    package init(rules: [Rule] = []) {
        self.rules = rules
    }

    /// The components switched off for a client sending `Hub-Client: header`; empty when no
    /// rule applies (or the header is absent or not `platform/semver`).
    package func killed(forClient header: String?) -> Set<ComponentIdentifier> {
        guard !rules.isEmpty, let header, let client = ClientVersion(header: header) else { return [] }
        var killed: Set<ComponentIdentifier> = []
        for rule in rules where rule.platform == client.platform && client.version < rule.below {
            killed.insert(rule.component)
        }
        return killed
    }

    /// Reads `components.killSwitches` (`path` names the list in issues).
    package static func read(_ value: JSONValue?, reader: ConfigReader, at path: String) -> KillSwitches {
        guard let value else { return KillSwitches() }
        guard let list = value.arrayValue else {
            reader.error(path, "must be a list of {component, client, below} rules")
            return KillSwitches()
        }
        if list.count > maximumRules { reader.error(path, "must hold at most \(maximumRules) rules") }
        var rules: [Rule] = []
        for (index, element) in list.prefix(maximumRules).enumerated() {
            let rulePath = "\(path)[\(index)]"
            guard let object = reader.object(element, at: rulePath) else { continue }
            reader.checkKeys(object, at: rulePath, known: ["component", "client", "below"])
            let componentText = reader.string(object, "component", at: rulePath, required: true)
            let platform = reader.string(object, "client", at: rulePath, required: true)
            let belowText = reader.string(object, "below", at: rulePath, required: true)
            var component: ComponentIdentifier?
            if let componentText {
                if let identifier = ComponentIdentifier(string: componentText), !identifier.namespace.isEmpty,
                    !identifier.name.isEmpty
                {
                    component = identifier
                } else {
                    reader.error("\(rulePath).component", "must be namespace:name")
                }
            }
            if let platform, platform.contains("/") || platform.contains(where: { $0 == " " || $0 == "\t" }) {
                reader.error("\(rulePath).client", "must be a platform name without '/' or spaces (ios, android, web)")
                continue
            }
            var below: SemanticVersion?
            if let belowText {
                below = SemanticVersion(belowText)
                if below == nil { reader.error("\(rulePath).below", "must be a version: MAJOR[.MINOR[.PATCH]][-prerelease]") }
            }
            if let component, let platform, let below {
                rules.append(Rule(component: component, platform: platform.lowercased(), below: below))
            }
        }
        return KillSwitches(rules: rules)
    }
}
