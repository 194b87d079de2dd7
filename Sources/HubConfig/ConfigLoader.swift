import Foundation
import HubEngine
import HubModel
import HubOperations

/// Reads and validates a configuration directory (DESIGN.md "Config format v1"), collecting
/// every problem with its file and JSON path, so `hub-server validate` can list them all.
public struct ConfigLoader: Sendable {
    /// Names the embedding app registered; `nil` skips checking `swift` references (the
    /// stand-alone `validate` command cannot know them).
    public var swiftOperationNames: Set<String>?
    public var swiftActionNames: Set<String>?
    /// Environment for `HUB_HOST`, `HUB_PORT`, `HUB_LOG_LEVEL`.
    public var environment: [String: String]
    /// Digests of the files one ``load(directory:)`` reads (set by it for its own run).
    private var ledger: FileLedger?

    public init(
        swiftOperationNames: Set<String>? = nil, swiftActionNames: Set<String>? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.swiftOperationNames = swiftOperationNames
        self.swiftActionNames = swiftActionNames
        self.environment = environment
    }

    /// The config directory to read: `directory` when given, else `HUB_CONFIG` when set and not
    /// empty, else `Config` (relative to the current directory). What `serve`, `validate`,
    /// `render` and ``HubApplication/load(directory:extensions:environment:)`` use.
    public static func directory(_ directory: String?, environment: [String: String]) -> String {
        directory ?? environment["HUB_CONFIG"].flatMap { $0.isEmpty ? nil : $0 } ?? "Config"
    }

    /// What to do when the config directory is not there: a relative path is taken from the
    /// current directory, so `hub-server serve` from elsewhere does not find `./Config`.
    package static func missingDirectoryMessage(_ directory: String) -> String {
        let current = FileManager.default.currentDirectoryPath
        let relative = directory.hasPrefix("/") ? "" : " (relative to the current directory \(current))"
        return "not a directory\(relative); run from the directory that holds it (the repository root for Config), "
            + "or name it: HUB_CONFIG=/path/to/Config, hub-server serve --config DIR, hub-server validate DIR"
    }

    /// Loads `directory`; throws ``ConfigurationError`` listing every error.
    public func load(directory: String) throws(ConfigurationError) -> LoadedConfiguration {
        var recording = self
        recording.ledger = FileLedger()
        return try recording.loadRecordingDigests(directory: directory)
    }

    private func loadRecordingDigests(directory: String) throws(ConfigurationError) -> LoadedConfiguration {
        var issues: [ConfigIssue] = []
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ConfigurationError(issues: [ConfigIssue(file: directory, path: "$", message: Self.missingDirectoryMessage(directory))])
        }

        // server.json
        let serverReader = ConfigReader(file: "server.json")
        var settings = ServerSettings(json: readJSON(directory, "server.json", reader: serverReader, optional: true), reader: serverReader)
        let environmentReader = ConfigReader(file: "environment")
        settings.applyEnvironment(environment, reader: environmentReader)
        settings.state.checkComplete(reader: serverReader)
        issues += serverReader.issues + environmentReader.issues
        let jsonDepth = settings.limits.jsonDepth

        // schemas/
        var schemas: [String: JSONSchema] = [:]
        for file in listJSON(directory, "schemas") {
            let reader = ConfigReader(file: "schemas/\(file)")
            if var json = readJSON(directory, "schemas/\(file)", reader: reader, depth: jsonDepth) {
                if let object = json.objectValue { json = .object(reader.removingSchemaReference(object)) }
                do {
                    let schema = try JSONSchema(json: json, identifier: String(file.dropLast(5)))
                    if schemas[schema.identifier] != nil {
                        reader.error("$.id", "schema '\(schema.identifier)' is declared twice")
                    } else {
                        schemas[schema.identifier] = schema
                    }
                } catch {
                    reader.error("$." + error.location, error.message)
                }
            }
            issues += reader.issues
        }

        // toggles.json
        let toggleReader = ConfigReader(file: "toggles.json")
        let toggles = readToggles(readJSON(directory, "toggles.json", reader: toggleReader, optional: true), reader: toggleReader)
        issues += toggleReader.issues

        // actions.json
        let actionReader = ConfigReader(file: "actions.json")
        let actions = readActions(readJSON(directory, "actions.json", reader: actionReader, optional: true), reader: actionReader)
        checkLocalePlaceholders(actions, locales: settings.locales, reader: actionReader)
        issues += actionReader.issues

        // features/
        var features: [FeatureDefinition] = []
        let context = FeatureReader.Context(
            directory: directory, schemas: Set(schemas.keys), toggles: toggles, jsonDepth: jsonDepth,
            swiftOperationNames: swiftOperationNames, loader: self,
            timeouts: (upstreamMs: settings.upstream.timeoutMs, operationSeconds: settings.timeouts.operationSeconds),
            identity: settings.identity, locales: settings.locales)
        for file in listJSON(directory, "features") {
            let reader = ConfigReader(file: "features/\(file)")
            if let json = readJSON(directory, "features/\(file)", reader: reader, depth: jsonDepth),
                let feature = FeatureReader(reader: reader, context: context).read(json, file: "features/\(file)")
            {
                features.append(feature)
            }
            issues += reader.issues
        }
        features.sort { $0.order != $1.order ? $0.order < $1.order : $0.file < $1.file }
        var seen: [String: String] = [:]
        for feature in features {
            if let first = seen[feature.identifier] {
                issues.append(ConfigIssue(
                    file: feature.file, path: "$.id", message: "duplicate feature id '\(feature.identifier)' (also in \(first))"))
            } else {
                seen[feature.identifier] = feature.file
            }
        }
        // strings/: the catalogs, and warnings about what they and the features' references miss.
        let strings = readStrings(directory, locales: settings.locales, features: features, depth: jsonDepth, issues: &issues)
        if features.isEmpty && !issues.contains(where: { $0.file.hasPrefix("features/") }) {
            issues.append(ConfigIssue(file: "features/", path: "$", message: "no feature is configured", severity: .warning))
        }

        guard !issues.contains(where: { $0.severity == .error }) else { throw ConfigurationError(issues: issues) }
        for directoryPath in Set(features.flatMap(\.templatedDirectories)) {
            ledger?.record(DirectoryDigest.key(directoryPath), digest: DirectoryDigest.digest(directoryPath, in: directory))
        }
        return LoadedConfiguration(
            directory: directory, settings: settings, features: features, schemas: schemas, toggles: toggles,
            actions: actions, warnings: issues, fileDigests: ledger?.digests ?? [:], strings: strings)
    }

    // MARK: - Files

    package func listJSON(_ directory: String, _ subdirectory: String) -> [String] {
        let path = (directory as NSString).appendingPathComponent(subdirectory)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return files.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.sorted()
    }

    /// Reads and parses one file; a missing optional file is `nil` without an issue.
    package func readJSON(_ directory: String, _ file: String, reader: ConfigReader, optional: Bool = false, depth: Int = 64) -> JSONValue? {
        let path = (directory as NSString).appendingPathComponent(file)
        guard let data = FileManager.default.contents(atPath: path) else {
            if !optional || FileManager.default.fileExists(atPath: path) { reader.error("$", "cannot read the file") }
            return nil
        }
        ledger?.record(file, data)
        do {
            return try JSONParser(options: .init(maxDepth: depth)).parse(data)
        } catch {
            reader.error("$", "invalid JSON: \(error)")
            return nil
        }
    }

    // MARK: - Toggles

    package func readToggles(_ json: JSONValue?, reader: ConfigReader) -> [String: ToggleDefinition] {
        guard let json, let object = reader.object(json, at: "$") else { return [:] }
        let root = reader.removingSchemaReference(object)
        var toggles: [String: ToggleDefinition] = [:]
        for (name, value) in root {
            let path = ConfigReader.join("$", name)
            guard let object = reader.object(value, at: path) else { continue }
            reader.checkKeys(object, at: path, known: ["values", "default", "rollout", "key"])
            guard let values = reader.stringList(object, "values", at: path), !values.isEmpty else {
                reader.error("\(path).values", "is required: the list of values")
                continue
            }
            guard let defaultValue = reader.string(object, "default", at: path, required: true) else { continue }
            guard values.contains(defaultValue) else {
                reader.error("\(path).default", "'\(defaultValue)' is not one of the values")
                continue
            }
            var rollout: [(String, Int)] = []
            if let rolloutObject = reader.object(object["rollout"], at: "\(path).rollout") {
                var total = 0
                for (rolloutValue, percentValue) in rolloutObject {
                    let rolloutPath = ConfigReader.join("\(path).rollout", rolloutValue)
                    guard values.contains(rolloutValue) else {
                        reader.error(rolloutPath, "'\(rolloutValue)' is not one of the values")
                        continue
                    }
                    guard let percent = ConfigReader.integer(percentValue), (0...100).contains(percent) else {
                        reader.error(rolloutPath, "must be a percentage from 0 to 100")
                        continue
                    }
                    total += percent
                    rollout.append((rolloutValue, percent))
                }
                if total > 100 { reader.error("\(path).rollout", "percentages add up to \(total), more than 100") }
            }
            var key: ToggleDefinition.Key?
            if let keyText = reader.string(object, "key", at: path) {
                if keyText.hasPrefix("header:"), keyText.count > 7 {
                    key = .header(String(keyText.dropFirst(7)))
                } else if keyText.hasPrefix("query:"), keyText.count > 6 {
                    key = .query(String(keyText.dropFirst(6)))
                } else {
                    reader.error("\(path).key", "must be header:NAME or query:NAME")
                }
            }
            if !rollout.isEmpty && key == nil && object["key"] == nil {
                reader.warning("\(path).key", "a rollout without a key gives every client the default")
            }
            toggles[name] = ToggleDefinition(name: name, values: values, defaultValue: defaultValue, rollout: rollout, key: key)
        }
        return toggles
    }

    // MARK: - Actions

    package func readActions(_ json: JSONValue?, reader: ConfigReader) -> [(namespace: String, definition: ActionDefinition)] {
        guard let json, let object = reader.object(json, at: "$") else { return [] }
        let root = reader.removingSchemaReference(object)
        var actions: [(String, ActionDefinition)] = []
        for (namespace, value) in root {
            let path = ConfigReader.join("$", namespace)
            if namespace == ActionRegistry.builtInNamespace {
                reader.error(path, "the 'hub' namespace is built in (hub:reload, hub:next-page)")
                continue
            }
            if namespace.isEmpty || namespace.contains(":") {
                reader.error(path, "a namespace must be non-empty and contain no ':'")
                continue
            }
            guard let object = reader.object(value, at: path) else { continue }
            guard let kind = reader.string(object, "kind", at: path, required: true) else { continue }
            switch kind {
            case "remote":
                reader.checkKeys(
                    object, at: path, known: ["kind", "url", "timeoutMs", "headers", "forwardHeaders", "forwardCookies", "forwardIdentity"])
                guard let urlText = reader.string(object, "url", at: path, required: true) else { continue }
                let scheme = urlText.lowercased()
                guard scheme.hasPrefix("http://") || scheme.hasPrefix("https://") else {
                    // An action POSTs to an upstream; a file: URL would only read (or, templated, expose) files.
                    reader.error("\(path).url", "must start with http:// or https://")
                    continue
                }
                let url: URLTemplate
                do { url = try URLTemplate(urlText, allowActions: true) } catch {
                    reader.error("\(path).url", error.message)
                    continue
                }
                let timeout = reader.int(object, "timeoutMs", at: path, range: 1...3_600_000)
                let headers = readHeaders(object, at: path, reader: reader)
                let forward = readForwardHeaders(object, at: path, reader: reader)
                let identity = readForwardIdentity(object, at: path, reader: reader)
                actions.append(
                    (namespace, .remote(url: url, timeoutMs: timeout, headers: headers, forwardHeaders: forward, forwardIdentity: identity)))
            case "swift":
                reader.checkKeys(object, at: path, known: ["kind", "name"])
                guard let name = reader.string(object, "name", at: path, required: true) else { continue }
                if let swiftActionNames, !swiftActionNames.contains(name) {
                    reader.error("\(path).name", "no Swift action factory is registered as '\(name)'")
                    continue
                }
                actions.append((namespace, .swift(name: name)))
            default:
                reader.error("\(path).kind", "unknown action kind '\(kind)'; expected remote or swift")
            }
        }
        return actions
    }

    package func readHeaders(_ object: JSONObject, at path: String, reader: ConfigReader) -> [(name: String, value: String)] {
        guard let headersObject = reader.object(object["headers"], at: "\(path).headers") else { return [] }
        var headers: [(String, String)] = []
        for (name, value) in headersObject {
            guard let string = value.stringValue else {
                reader.error(ConfigReader.join("\(path).headers", name), "must be a string")
                continue
            }
            let invalid = name.isEmpty || name.utf8.contains { $0 <= 32 || $0 >= 127 || $0 == UInt8(ascii: ":") }
                || string.utf8.contains { $0 == 13 || $0 == 10 || $0 == 0 }
            if invalid {
                reader.error(ConfigReader.join("\(path).headers", name), "invalid header name or value")
                continue
            }
            headers.append((name, string))
        }
        return headers
    }

    /// Most headers one operation or action namespace may forward.
    package static let maximumForwardedHeaders = 16

    /// `forwardHeaders` (caller headers sent on upstream) checked against what may never be
    /// forwarded, with `forwardCookies` allowing `Cookie`; names deduplicated case-insensitively.
    package func readForwardHeaders(_ object: JSONObject, at path: String, reader: ConfigReader) -> [String] {
        let allowCookie = reader.bool(object, "forwardCookies", at: path) ?? false
        guard let names = reader.stringList(object, "forwardHeaders", at: path) else {
            if allowCookie { reader.warning("\(path).forwardCookies", "has no effect without forwardHeaders: [\"Cookie\"]") }
            return []
        }
        if names.count > Self.maximumForwardedHeaders {
            reader.error("\(path).forwardHeaders", "at most \(Self.maximumForwardedHeaders) headers")
            return []
        }
        var kept: [String] = []
        for (index, name) in names.enumerated() {
            if let refusal = ForwardedHeaders.refusal(name, allowCookie: allowCookie) {
                reader.error("\(path).forwardHeaders[\(index)]", refusal)
            } else if !kept.contains(where: { $0.lowercased() == name.lowercased() }) {
                kept.append(name)
            }
        }
        return kept
    }

    /// `"forwardIdentity": {"header": NAME}`: the header that sends the verified user's subject
    /// upstream. Refused for a header that may never be forwarded, and beside `forwardHeaders`
    /// naming it too (the client's own value must never reach the upstream).
    package func readForwardIdentity(_ object: JSONObject, at path: String, reader: ConfigReader) -> String? {
        guard let identity = reader.object(object["forwardIdentity"], at: "\(path).forwardIdentity") else { return nil }
        reader.checkKeys(identity, at: "\(path).forwardIdentity", known: ["header"])
        guard let name = reader.string(identity, "header", at: "\(path).forwardIdentity", required: true) else { return nil }
        if let refusal = ForwardedHeaders.refusal(name, allowCookie: false) {
            reader.error("\(path).forwardIdentity.header", refusal)
            return nil
        }
        if let forwarded = reader.stringList(object, "forwardHeaders", at: path),
            forwarded.contains(where: { $0.lowercased() == name.lowercased() })
        {
            reader.error(
                "\(path).forwardHeaders", "'\(name)' is the forwardIdentity header: the client's own value of it is never sent on")
            return nil
        }
        return name
    }
}
