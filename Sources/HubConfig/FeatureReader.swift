import Foundation
import HubEngine
import HubModel
import HubOperations

/// Reads one feature file into a ``FeatureDefinition``, reporting every problem.
package struct FeatureReader {
    package struct Context {
        package let directory: String
        package let schemas: Set<String>
        package let toggles: [String: ToggleDefinition]
        package let jsonDepth: Int
        package let swiftOperationNames: Set<String>?
        package let loader: ConfigLoader
        /// `upstream.timeoutMs` and `timeouts.operationSeconds` (a stale timeout needs the first below the second).
        package let timeouts: (upstreamMs: Int, operationSeconds: Double)
        /// `identity`: what `{user...}` placeholders may name.
        package var identity = IdentitySettings()
        /// `locales`: whether `{locale}` and `sendLocale` have a locale to use.
        package var locales: LocaleSettings? = nil
    }

    /// What the feature reads besides its own file (``FeatureDefinition/sources``).
    package final class Sources {
        package var files: [String] = []
        /// Directories a templated `file:` URL reads under (the URL's literal part up to its
        /// last `/` before the first placeholder).
        package var templatedDirectories: [String] = []
    }

    package let reader: ConfigReader
    package let context: Context
    package let sources = Sources()

    package func read(_ json: JSONValue, file: String) -> FeatureDefinition? {
        guard let object = reader.object(json, at: "$") else { return nil }
        let root = reader.removingSchemaReference(object)
        reader.checkKeys(
            root, at: "$",
            known: ["id", "title", "titles", "order", "match", "schema", "reload", "actionHandler", "operations", "access"])
        let identifier = reader.string(root, "id", at: "$", required: true)
        let title = reader.string(root, "title", at: "$", required: true)
        var titles: [String: String] = [:]
        if let titlesObject = reader.object(root["titles"], at: "$.titles") {
            for (language, value) in titlesObject {
                if let string = value.stringValue, !string.isEmpty { titles[language] = string } else {
                    reader.error(ConfigReader.join("$.titles", language), "must be a non-empty string")
                }
            }
        }
        let order = reader.int(root, "order", at: "$") ?? 0
        let predicate = readMatch(root["match"])
        var schema: String?
        if let name = reader.string(root, "schema", at: "$"), name != "default" {
            if context.schemas.contains(name) { schema = name } else {
                reader.error("$.schema", "no schema '\(name)' in schemas/ (known: \(context.schemas.sorted().joined(separator: ", ")))")
            }
        }
        let reload = readReload(root["reload"])
        var vetoed: [ComponentIdentifier] = []
        if let handler = reader.object(root["actionHandler"], at: "$.actionHandler") {
            reader.checkKeys(handler, at: "$.actionHandler", known: ["veto"])
            vetoed = reader.actionIdentifiers(handler, "veto", at: "$.actionHandler") ?? []
        }
        var operations: [OperationDefinition] = []
        if let list = root["operations"] {
            if let elements = list.arrayValue, !elements.isEmpty {
                operations = readOperations(elements, at: "$.operations")
            } else {
                reader.error("$.operations", "must be a non-empty list of operations")
            }
        } else {
            reader.error("$.operations", "is required: a non-empty list of operations")
        }
        guard !reader.hasErrors, let identifier, let title, let predicate else { return nil }
        return FeatureDefinition(
            identifier: identifier, title: title, titles: titles, order: order, file: file, predicate: predicate,
            schema: schema, reloadPolicy: reload, vetoedActions: vetoed, operations: operations,
            sources: sources.files, templatedDirectories: sources.templatedDirectories,
            access: root["access"].flatMap { access in
                if !context.identity.isEnabled {
                    reader.warning("$.access", "server.json names no identity (\"identity\"): no request has a user, so every one is 401")
                }
                return AccessRuleReader.read(access, reader: reader)
            })
    }

    private func readReload(_ value: JSONValue?) -> ReloadPolicy {
        guard let value else { return .always }
        switch value {
        case .string("always"): return .always
        case .string("never"): return .never
        case .object(let object):
            reader.checkKeys(object, at: "$.reload", known: ["maxAgeSeconds"])
            if let seconds = reader.seconds(object, "maxAgeSeconds", at: "$.reload", range: ServerSettings.Ranges.maxAge) {
                return .maxAge(.milliseconds(Int64(seconds * 1000)))
            }
            reader.error("$.reload", "must be \"always\", \"never\" or {\"maxAgeSeconds\": N}")
        default:
            reader.error("$.reload", "must be \"always\", \"never\" or {\"maxAgeSeconds\": N}")
        }
        return .always
    }

    package func readOperations(_ elements: [JSONValue], at path: String) -> [OperationDefinition] {
        var operations: [OperationDefinition] = []
        for (index, element) in elements.enumerated() {
            if let operation = readOperation(element, at: "\(path)[\(index)]") { operations.append(operation) }
        }
        return operations
    }

    private func readOperation(_ value: JSONValue, at path: String) -> OperationDefinition? {
        guard let object = reader.object(value, at: path) else { return nil }
        guard let kind = reader.string(object, "kind", at: path, required: true) else { return nil }
        let common: Set<String> = ["kind", "initial", "rescheduleOn"]
        var initial: JSONValue?
        if let initialValue = object["initial"] {
            if initialValue.objectValue != nil || initialValue.arrayValue != nil { initial = initialValue } else {
                reader.error("\(path).initial", "must be view JSON (an object) or a list of body components")
            }
        }
        let rescheduleOn = reader.actionIdentifiers(object, "rescheduleOn", at: path) ?? []
        let operationKind: OperationDefinition.Kind
        var name = kind
        switch kind {
        case "static":
            reader.checkKeys(object, at: path, known: common.union(["json", "file"]))
            guard let document = readDocument(object, at: path) else { return nil }
            operationKind = .staticContent(document)
        case "recover":
            reader.checkKeys(object, at: path, known: common.union(["json", "file"]))
            guard let document = readDocument(object, at: path) else { return nil }
            operationKind = .recover(document)
        case "remote":
            reader.checkKeys(
                object, at: path,
                known: common.union([
                    "url", "method", "headers", "timeoutMs", "retries", "schema", "paginated", "optional", "forwardHeaders",
                    "forwardCookies", "forwardIdentity", "staleIfErrorSeconds", "staleWhileRevalidateSeconds", "sendLocale",
                    "defaultMaxAgeSeconds",
                ]))
            guard let remote = readRemote(object, at: path) else { return nil }
            operationKind = .remote(remote)
        case "patch":
            reader.checkKeys(object, at: path, known: common.union(["set", "remove", "move"]))
            guard let patch = readPatch(object, at: path) else { return nil }
            operationKind = .patch(patch)
        case "variant":
            reader.checkKeys(object, at: path, known: common.union(["toggle", "variants"]))
            guard let variant = readVariant(object, at: path) else { return nil }
            operationKind = variant
        case "swift":
            reader.checkKeys(object, at: path, known: common.union(["name"]))
            guard let swiftName = reader.string(object, "name", at: path, required: true) else { return nil }
            if let names = context.swiftOperationNames, !names.contains(swiftName) {
                reader.error("\(path).name", "no Swift operation is registered as '\(swiftName)' (registered: \(names.sorted().joined(separator: ", ")))")
                return nil
            }
            operationKind = .swift(name: swiftName)
            name = swiftName
        default:
            reader.error("\(path).kind", "unknown operation kind '\(kind)'; expected static, remote, recover, variant, patch or swift")
            return nil
        }
        return OperationDefinition(kind: operationKind, initial: initial, rescheduleOn: rescheduleOn, name: name)
    }

    /// `json` inline or `file` relative to the config directory: a view object or a body list.
    private func readDocument(_ object: JSONObject, at path: String) -> JSONValue? {
        if object["json"] != nil && object["file"] != nil {
            reader.error(path, "give json or file, not both")
            return nil
        }
        if let json = object["json"] {
            guard json.objectValue != nil || json.arrayValue != nil else {
                reader.error("\(path).json", "must be view JSON (an object) or a list of body components")
                return nil
            }
            return json
        }
        guard let file = reader.string(object, "file", at: path) else {
            reader.error(path, "needs json (inline content) or file (a path under the config directory)")
            return nil
        }
        guard !file.hasPrefix("/"), !file.split(separator: "/").contains("..") else {
            reader.error("\(path).file", "must be a relative path inside the config directory")
            return nil
        }
        sources.files.append(file)
        let contentReader = ConfigReader(file: file)
        let document = context.loader.readJSON(context.directory, file, reader: contentReader, depth: context.jsonDepth)
        for issue in contentReader.issues {
            reader.error("\(path).file", "\(file): \(issue.message)")
        }
        guard let document else { return nil }
        guard document.objectValue != nil || document.arrayValue != nil else {
            reader.error("\(path).file", "\(file) must hold view JSON (an object) or a list of body components")
            return nil
        }
        return document
    }

    private func readRemote(_ object: JSONObject, at path: String) -> RemoteOperationDefinition? {
        guard var urlText = reader.string(object, "url", at: path, required: true) else { return nil }
        let lowered = urlText.lowercased()
        let original = urlText
        if lowered.hasPrefix("file:") && !lowered.hasPrefix("file://") {
            // `file:content/x.json`: relative to the config directory, so a config works wherever it is.
            urlText = "file://" + Self.absolutePath(context.directory, String(urlText.dropFirst(5)))
        } else if !(lowered.hasPrefix("http://") || lowered.hasPrefix("https://") || lowered.hasPrefix("file://")) {
            reader.error("\(path).url", "must start with http://, https://, file:// or file: (relative to the config directory)")
            return nil
        }
        var url: URLTemplate
        do { url = try URLTemplate(urlText) } catch {
            reader.error("\(path).url", error.message)
            return nil
        }
        checkUserPlaceholders(url, at: "\(path).url")
        checkIdentityHeader(url, at: "\(path).url")
        if lowered.hasPrefix("file:") {
            if url.parts.count > 1 {
                let path = String(original.dropFirst(lowered.hasPrefix("file://") ? 7 : 5))
                let literal = path.prefix { $0 != "{" }
                let directory = literal.lastIndex(of: "/").map { String(literal[...$0]) } ?? ""
                sources.templatedDirectories.append(directory)
            } else {
                sources.files.append(String(original.dropFirst(lowered.hasPrefix("file://") ? 7 : 5)))
            }
        }
        if urlText.lowercased().hasPrefix("file:"), url.parts.count > 1 {
            // A client's values must not reach files outside the config directory (symlinks too).
            url.fileRoot = URLTemplate.realDirectory(context.directory) ?? context.directory
        }
        let method = (reader.string(object, "method", at: path) ?? "GET").uppercased()
        guard ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"].contains(method) else {
            reader.error("\(path).method", "unsupported method '\(method)'")
            return nil
        }
        let retries = reader.int(object, "retries", at: path, range: 0...5) ?? 0
        if retries > 0 && method != "GET" {
            reader.error("\(path).retries", "retries are only for idempotent GET requests")
        }
        var schema: String?
        if let name = reader.string(object, "schema", at: path), name != "default" {
            if context.schemas.contains(name) { schema = name } else {
                reader.error("\(path).schema", "no schema '\(name)' in schemas/")
            }
        }
        let stale = StaleContentStore.Policy(
            ifErrorSeconds: reader.int(object, "staleIfErrorSeconds", at: path, range: 0...Self.maximumStaleSeconds),
            whileRevalidateSeconds: reader.int(
                object, "staleWhileRevalidateSeconds", at: path, range: 0...Self.maximumStaleSeconds))
        if method != "GET", !stale.isUnset {
            reader.error(path, "staleIfErrorSeconds and staleWhileRevalidateSeconds are only for GET requests")
        }
        let timeoutMs = reader.int(object, "timeoutMs", at: path, range: 1...3_600_000)
        if (stale.ifErrorSeconds ?? 0) > 0,
            Double(timeoutMs ?? context.timeouts.upstreamMs) >= context.timeouts.operationSeconds * 1000
        {
            reader.warning(
                "\(path).staleIfErrorSeconds",
                "an upstream timeout is stood in for only when timeoutMs is below timeouts.operationSeconds; "
                    + "otherwise the view fails with operation_timeout first")
        }
        var definition = RemoteOperationDefinition(
            url: url, method: method, headers: context.loader.readHeaders(object, at: path, reader: reader),
            timeoutMs: timeoutMs, retries: retries, schema: schema,
            paginated: reader.bool(object, "paginated", at: path) ?? false,
            optional: reader.bool(object, "optional", at: path) ?? false,
            forwardHeaders: context.loader.readForwardHeaders(object, at: path, reader: reader),
            forwardIdentity: context.loader.readForwardIdentity(object, at: path, reader: reader), stalePolicy: stale,
            sendLocale: readSendLocale(object, url: url, at: path))
        definition.defaultMaxAgeSeconds = readDefaultMaxAge(
            object, method: method, forwardsHeaders: object["forwardHeaders"] != nil, at: path)
        return definition
    }

    /// The longest `staleIfErrorSeconds` and `staleWhileRevalidateSeconds`: a week.
    package static let maximumStaleSeconds = 604_800

    /// `directory/relative` as an absolute, percent-encoded path for a file URL.
    package static func absolutePath(_ directory: String, _ relative: String) -> String {
        var base = directory
        if !base.hasPrefix("/") { base = FileManager.default.currentDirectoryPath + "/" + base }
        let joined = (base as NSString).appendingPathComponent(relative)
        let standardized = (joined as NSString).standardizingPath
        return standardized.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            // Keep placeholders like {page} intact; encode the rest.
            segment.contains("{") ? String(segment) : URLTemplate.encode(String(segment))
        }.joined(separator: "/")
    }

    private func readPatch(_ object: JSONObject, at path: String) -> PatchDefinition? {
        var set = JSONObject()
        if let setObject = reader.object(object["set"], at: "\(path).set") {
            for (id, component) in setObject {
                if component.objectValue != nil { set[id] = component } else {
                    reader.error(ConfigReader.join("\(path).set", id), "must be component JSON (an object)")
                }
            }
        }
        let remove = reader.stringList(object, "remove", at: path) ?? []
        var move: [(String, Int)] = []
        if let moveObject = reader.object(object["move"], at: "\(path).move") {
            for (id, index) in moveObject {
                if let position = ConfigReader.integer(index), position >= 0 { move.append((id, position)) } else {
                    reader.error(ConfigReader.join("\(path).move", id), "must be an index (an integer from 0)")
                }
            }
        }
        if set.isEmpty && remove.isEmpty && move.isEmpty {
            reader.error(path, "a patch needs set, remove or move")
            return nil
        }
        return PatchDefinition(set: set, remove: remove, move: move)
    }

    private func readVariant(_ object: JSONObject, at path: String) -> OperationDefinition.Kind? {
        guard let toggleName = reader.string(object, "toggle", at: path, required: true) else { return nil }
        guard let toggle = context.toggles[toggleName] else {
            reader.error("\(path).toggle", "no toggle '\(toggleName)' in toggles.json")
            return nil
        }
        guard let variantsObject = reader.object(object["variants"], at: "\(path).variants") else {
            reader.error("\(path).variants", "is required: operations per toggle value")
            return nil
        }
        var variants: [String: [OperationDefinition]] = [:]
        for (value, list) in variantsObject {
            let variantPath = ConfigReader.join("\(path).variants", value)
            guard toggle.values.contains(value) else {
                reader.error(variantPath, "'\(value)' is not a value of toggle '\(toggleName)'")
                continue
            }
            guard let elements = list.arrayValue else {
                reader.error(variantPath, "must be a list of operations")
                continue
            }
            variants[value] = readOperations(elements, at: variantPath)
        }
        return .variant(toggle: toggleName, variants: variants)
    }

    /// `{user...}` needs `identity` configured, and `{user.claim.NAME}` a claim `identity.claims` lists.
    package func checkUserPlaceholders(_ url: URLTemplate, at path: String) {
        guard url.usesUser else { return }
        if !context.identity.isEnabled {
            reader.error(path, "{user...} names the verified user: configure server.json \"identity\" (docs/SECURITY.md)")
        }
        for case .userClaim(let name) in url.parts where !context.identity.claims.contains(name) {
            reader.error(path, "{user.claim.\(name)}: list '\(name)' in server.json identity.claims")
        }
    }

    /// `{header.NAME}` of the gateway's identity header is always empty: say so.
    package func checkIdentityHeader(_ url: URLTemplate, at path: String) {
        guard let identity = context.identity.headerName else { return }
        for case .header(let name) in url.parts where name.lowercased() == identity.lowercased() {
            reader.warning(path, "{header.\(name)} is always empty: the identity header reaches operations only as {user.sub}")
        }
    }
}
