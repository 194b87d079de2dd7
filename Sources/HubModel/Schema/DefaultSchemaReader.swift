/// Applies JSON in HubFramework's default schema to builders, with its merge rules:
/// wrong types and `null` are ignored (S6, S8), scalars overwrite (S27), dictionaries merge
/// shallowly (S28), the same id merges in place (S29..S31), actions union (S32).
enum DefaultSchemaReader {
    /// Root object (S1) into a view model builder.
    static func apply(viewObject object: JSONObject, to builder: inout ViewModelBuilder) {
        if let identifier = object["id"]?.stringValue { builder.identifier = identifier }
        if let title = object["title"]?.stringValue { builder.title = title }
        if let header = object["header"]?.objectValue {
            let identifier = header["id"]?.stringValue ?? "header"
            builder.withHeader(identifier: identifier) { apply(componentObject: header, to: &$0) }
        }
        if let body = object["body"]?.arrayValue { apply(componentArray: body, to: &builder.body) }
        if let overlays = object["overlays"]?.arrayValue { apply(componentArray: overlays, to: &builder.overlays) }
        if let custom = object["custom"]?.objectValue { merge(custom, into: &builder.customData) }
    }

    /// A list of component objects into a container; non-objects are skipped (S2, S16, S29, S30).
    static func apply(componentArray elements: [JSONValue], to list: inout ComponentBuilderList) {
        for element in elements {
            guard let object = element.objectValue else { continue }
            if let identifier = object["id"]?.stringValue {
                list.update(identifier) { apply(componentObject: object, to: &$0) }
            } else {
                list.appendGenerated { apply(componentObject: object, to: &$0) }
            }
        }
    }

    /// A component object into its builder (table 1.2). The `id` key is the parent's business (S33).
    static func apply(componentObject object: JSONObject, to builder: inout ComponentModelBuilder) {
        for (key, value) in object {
            switch key {
            case "group":
                if let group = value.stringValue { builder.groupIdentifier = group }
            case "component":
                guard let component = value.objectValue else { continue }  // S14
                if let identifier = component["id"]?.stringValue { applyComponentIdentifier(identifier, to: &builder) }
                if let category = component["category"]?.stringValue { builder.componentCategory = category }
            case "text":
                guard let text = value.objectValue else { continue }
                if let title = text["title"]?.stringValue { builder.title = title }
                if let subtitle = text["subtitle"]?.stringValue { builder.subtitle = subtitle }
                if let accessory = text["accessory"]?.stringValue { builder.accessoryTitle = accessory }
                if let description = text["description"]?.stringValue { builder.descriptionText = description }
            case "images":
                guard let images = value.objectValue else { continue }
                if let main = images["main"]?.objectValue { apply(imageObject: main, to: &builder.mainImage) }
                if let background = images["background"]?.objectValue {
                    apply(imageObject: background, to: &builder.backgroundImage)
                }
                if let custom = images["custom"]?.objectValue {
                    for (name, imageValue) in custom {
                        guard let imageObject = imageValue.objectValue else { continue }  // S15
                        var image = builder[customImage: name]
                        apply(imageObject: imageObject, to: &image)
                        builder[customImage: name] = image
                    }
                }
                if let icon = images["icon"]?.stringValue { builder.icon = icon }
            case "target":
                guard let target = value.objectValue else { continue }
                let defaults = builder.defaults
                builder.withTarget { apply(targetObject: target, to: &$0, defaults: defaults) }
            case "metadata":
                if let metadata = value.objectValue { merge(metadata, into: &builder.metadata) }
            case "logging":
                if let logging = value.objectValue { merge(logging, into: &builder.loggingData) }
            case "custom":
                if let custom = value.objectValue { merge(custom, into: &builder.customData) }
            case "children":
                if let children = value.arrayValue { apply(componentArray: children, to: &builder.children) }
            default:
                continue
            }
        }
    }

    /// `component.id`: split on `:`; two or more parts set namespace and name (extra parts are
    /// dropped, S10, S12); no colon sets the name only (S11).
    static func applyComponentIdentifier(_ string: String, to builder: inout ComponentModelBuilder) {
        let parts = string.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        if parts.count >= 2 {
            builder.componentIdentifier = ComponentIdentifier(namespace: String(parts[0]), name: String(parts[1]))
        } else {
            builder.componentName = string
        }
    }

    /// Image data object (table 1.3, S9, S24).
    static func apply(imageObject object: JSONObject, to image: inout ComponentImageDataBuilder) {
        if let uri = object["uri"]?.stringValue, URIReference.isValid(uri) { image.uri = uri }
        if let placeholder = object["placeholder"]?.stringValue { image.placeholder = placeholder }
        if let local = object["local"]?.stringValue { image.localImageName = local }
        if let custom = object["custom"]?.objectValue { merge(custom, into: &image.customData) }
    }

    /// Target object (table 1.4, S18..S21, S32).
    static func apply(targetObject object: JSONObject, to target: inout ComponentTargetBuilder, defaults: ComponentDefaults) {
        if let uri = object["uri"]?.stringValue, URIReference.isValid(uri) { target.uri = uri }
        if let view = object["view"]?.objectValue {
            target.withInitialViewModel(defaults: defaults) { apply(viewObject: view, to: &$0) }
        }
        if let actions = object["actions"]?.arrayValue {
            for action in actions {
                guard let string = action.stringValue, let identifier = ComponentIdentifier(string: string) else { continue }
                target.addAction(identifier)
            }
        }
        if let custom = object["custom"]?.objectValue { merge(custom, into: &target.customData) }
    }

    /// Shallow merge, creating the dictionary when absent (S28).
    @inline(__always) static func merge(_ object: JSONObject, into destination: inout JSONObject?) {
        if destination == nil {
            destination = object
        } else {
            destination!.merge(object)
        }
    }
}
