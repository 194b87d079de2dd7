/// An RFC 6902 JSON Patch that turns one view's JSON into the next one's, made from
/// ``ViewModelDiff`` (components keyed by identifier, S173..S181): a component whose content
/// changed is replaced at its index path (`/body/3`), an added one is inserted (`add`), a
/// removed one removed, and one that changed position is moved (`move`, with a `replace`
/// after it when its content changed too). Every other top-level field (title, header,
/// overlays, custom data) is added, removed or replaced whole when it differs.
///
/// Applying ``operations`` to the old JSON gives JSON equal to the new (objects compared
/// without regard to key order). `nil` when the two views cannot be patched by identifier
/// (a body with a repeated or missing identifier, or JSON that is not the models' view): send
/// the whole view then.
public struct ViewPatch: Sendable {
    /// The operations, in the order they apply.
    public let operations: [JSONValue]

    /// The patch from `oldJSON` (the JSON of `oldModel`, component fallback applied or not) to
    /// `newJSON` (the JSON of `newModel`).
    public init?(from oldModel: ViewModel, _ oldJSON: JSONValue, to newModel: ViewModel, _ newJSON: JSONValue) {
        // Compact view models parse once here, not at each read of their body.
        let oldModel = oldModel.expanded, newModel = newModel.expanded
        guard let old = oldJSON.objectValue, let new = newJSON.objectValue else { return nil }
        var operations: [JSONValue] = []
        for (key, _) in old where new[key] == nil {
            operations.append(Self.operation("remove", path: "/" + Self.escape(key)))
        }
        for (key, value) in new {
            let path = "/" + Self.escape(key)
            guard let before = old[key] else {
                operations.append(Self.operation("add", path: path, value: value))
                continue
            }
            if key == "body", let oldBody = before.arrayValue, let newBody = value.arrayValue {
                guard
                    let bodyOperations = Self.bodyOperations(
                        oldModel: oldModel, oldBody, newModel: newModel, newBody)
                else { return nil }
                operations += bodyOperations
            } else if before != value {
                operations.append(Self.operation("replace", path: path, value: value))
            }
        }
        self.operations = operations
    }

    /// The patch as one JSON array.
    public var json: JSONValue { .array(operations) }

    private static func bodyOperations(
        oldModel: ViewModel, _ oldBody: [JSONValue], newModel: ViewModel, _ newBody: [JSONValue]
    ) -> [JSONValue]? {
        let oldIDs = oldModel.body.map(\.identifier)
        let newIDs = newModel.body.map(\.identifier)
        // The JSON must be the models' body, one component per element, each id once.
        guard oldIDs.count == oldBody.count, newIDs.count == newBody.count,
            zip(oldIDs, oldBody).allSatisfy({ $0.0 == $0.1["id"]?.stringValue }),
            zip(newIDs, newBody).allSatisfy({ $0.0 == $0.1["id"]?.stringValue }),
            Set(oldIDs).count == oldIDs.count, Set(newIDs).count == newIDs.count
        else { return nil }
        let diff = ViewModelDiff(from: oldModel, to: newModel)
        let deleted = Set(diff.deletedBodyIndexes)
        let inserted = Set(diff.insertedBodyIndexes)
        var oldIndexByID: [String: Int] = [:]
        for (index, id) in oldIDs.enumerated() { oldIndexByID[id] = index }
        let movedIDs = Set(diff.deletedBodyIndexes.map { oldIDs[$0] }).intersection(diff.insertedBodyIndexes.map { newIDs[$0] })
        var operations: [JSONValue] = []

        // 1. Kept components whose content changed: replaced where they stand (old indexes).
        let keptOld = oldIDs.indices.filter { !deleted.contains($0) }
        let keptNew = newIDs.indices.filter { !inserted.contains($0) }
        guard keptOld.count == keptNew.count else { return nil }
        for (oldIndex, newIndex) in zip(keptOld, keptNew) where oldBody[oldIndex] != newBody[newIndex] {
            operations.append(operation("replace", path: "/body/\(oldIndex)", value: newBody[newIndex]))
        }
        // 2. Removed components, last first so the indexes before them hold.
        var current = oldIDs
        for index in diff.deletedBodyIndexes.reversed() where !movedIDs.contains(oldIDs[index]) {
            operations.append(operation("remove", path: "/body/\(index)"))
            current.remove(at: index)
        }
        // 3. Position by position: what is there already stays, a moved component is moved
        // here, a new one is inserted. Every step leaves current[0...k] equal to the new ids.
        // Past this many operations the whole body costs about as much: give up (bounded work).
        let budget = newIDs.count / 2 + 16
        for (k, id) in newIDs.enumerated() {
            guard operations.count <= budget else { return nil }
            if k < current.count && current[k] == id {
                if movedIDs.contains(id), let oldIndex = oldIndexByID[id], oldBody[oldIndex] != newBody[k] {
                    operations.append(operation("replace", path: "/body/\(k)", value: newBody[k]))
                }
                continue
            }
            if let from = current[k...].firstIndex(of: id) {
                operations.append(operation("move", from: "/body/\(from)", path: "/body/\(k)"))
                current.remove(at: from)
                current.insert(id, at: k)
                if movedIDs.contains(id), let oldIndex = oldIndexByID[id], oldBody[oldIndex] != newBody[k] {
                    operations.append(operation("replace", path: "/body/\(k)", value: newBody[k]))
                }
            } else {
                operations.append(operation("add", path: "/body/\(k)", value: newBody[k]))
                current.insert(id, at: k)
            }
        }
        guard current == newIDs else { return nil }
        return operations
    }

    private static func operation(_ op: String, from: String? = nil, path: String, value: JSONValue? = nil) -> JSONValue {
        var object = JSONObject()
        object["op"] = .string(op)
        if let from { object["from"] = .string(from) }
        object["path"] = .string(path)
        if let value { object["value"] = value }
        return .object(object)
    }

    /// A JSON Pointer reference token (RFC 6901): `~` as `~0`, `/` as `~1`.
    static func escape(_ key: String) -> String {
        guard key.contains(where: { $0 == "~" || $0 == "/" }) else { return key }
        var escaped = ""
        for character in key {
            switch character {
            case "~": escaped += "~0"
            case "/": escaped += "~1"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
