/// Serialization of built models in the default schema (S35..S46, with DESIGN.md's decisions).
///
/// Keys come in a fixed order, free-form dictionaries in their input order, so the same
/// model always gives the same bytes. Nil and empty values are omitted: no `null`, no `{}`,
/// no `[]`, no empty `text` or `images`. Icons, placeholders, image `local` and image
/// `custom` are kept. `component` is always written (S36, S42).
extension ViewModel {
    /// The compact JSON bytes of this view model.
    public func jsonBytes(capacityHint: Int = 4096) -> [UInt8] {
        if let bytes = compactBytes { return bytes }
        var writer = JSONWriter(capacity: capacityHint)
        write(to: &writer)
        return writer.finish()
    }

    /// The JSON as a string (for logs and tests; the server sends ``jsonBytes(capacityHint:)``).
    public var jsonString: String {
        String(decoding: jsonBytes(), as: UTF8.self)
    }

    /// Appends this view model's JSON object to `writer`.
    public func write(to writer: inout JSONWriter) {
        if let bytes = compactBytes {
            writer.writeBytes(bytes)
            return
        }
        var isFirst = true
        writer.writeByte(UInt8(ascii: "{"))
        if let identifier { writer.writeField("\"id\":", first: &isFirst); writer.writeString(identifier) }
        if let title { writer.writeField("\"title\":", first: &isFirst); writer.writeString(title) }
        if let header { writer.writeField("\"header\":", first: &isFirst); header.write(to: &writer) }
        if !body.isEmpty { writer.writeField("\"body\":", first: &isFirst); ComponentModel.write(body, to: &writer) }
        if !overlays.isEmpty { writer.writeField("\"overlays\":", first: &isFirst); ComponentModel.write(overlays, to: &writer) }
        if let customData, !customData.isEmpty { writer.writeField("\"custom\":", first: &isFirst); writer.writeObject(customData) }
        writer.writeByte(UInt8(ascii: "}"))
    }
}

extension ViewModel {
    /// `true` when the view model would serialize as `{}`: DESIGN.md omits empty values.
    public var isEmpty: Bool {
        if let bytes = compactBytes { return bytes.count == 2 }
        return identifier == nil && title == nil && header == nil && body.isEmpty && overlays.isEmpty
            && (customData?.isEmpty ?? true)
    }
}

extension ComponentModel {
    /// The compact JSON bytes of this component.
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter(capacity: 512)
        write(to: &writer)
        return writer.finish()
    }

    static func write(_ models: [ComponentModel], to writer: inout JSONWriter) {
        writer.writeByte(UInt8(ascii: "["))
        for (position, model) in models.enumerated() {
            if position > 0 { writer.writeByte(UInt8(ascii: ",")) }
            model.write(to: &writer)
        }
        writer.writeByte(UInt8(ascii: "]"))
    }

    /// Appends this component's JSON object to `writer` (S36..S38).
    public func write(to writer: inout JSONWriter) {
        writer.writeRaw("{\"id\":")
        writer.writeString(identifier)
        if let groupIdentifier {
            writer.writeRaw(",\"group\":")
            writer.writeString(groupIdentifier)
        }
        writer.writeRaw(",\"component\":{\"id\":\"")
        writer.writeEscapedContents(componentIdentifier.namespace)
        writer.writeByte(UInt8(ascii: ":"))
        writer.writeEscapedContents(componentIdentifier.name)
        writer.writeByte(UInt8(ascii: "\""))
        writer.writeRaw(",\"category\":")
        writer.writeString(componentCategory)
        writer.writeByte(UInt8(ascii: "}"))

        if title != nil || subtitle != nil || accessoryTitle != nil || descriptionText != nil {
            writer.writeRaw(",\"text\":")
            var text = true
            writer.writeByte(UInt8(ascii: "{"))
            if let title { writer.writeField("\"title\":", first: &text); writer.writeString(title) }
            if let subtitle { writer.writeField("\"subtitle\":", first: &text); writer.writeString(subtitle) }
            if let accessoryTitle { writer.writeField("\"accessory\":", first: &text); writer.writeString(accessoryTitle) }
            if let descriptionText { writer.writeField("\"description\":", first: &text); writer.writeString(descriptionText) }
            writer.writeByte(UInt8(ascii: "}"))
        }

        if mainImageData != nil || backgroundImageData != nil || icon != nil || !customImageData.isEmpty {
            writer.writeRaw(",\"images\":")
            var images = true
            writer.writeByte(UInt8(ascii: "{"))
            if let mainImageData { writer.writeField("\"main\":", first: &images); mainImageData.write(to: &writer) }
            if let backgroundImageData { writer.writeField("\"background\":", first: &images); backgroundImageData.write(to: &writer) }
            if let icon { writer.writeField("\"icon\":", first: &images); writer.writeString(icon) }
            if !customImageData.isEmpty {
                writer.writeField("\"custom\":", first: &images)
                writer.writeByte(UInt8(ascii: "{"))
                for (position, image) in customImageData.enumerated() {
                    if position > 0 { writer.writeByte(UInt8(ascii: ",")) }
                    writer.writeString(image.identifier ?? "")
                    writer.writeByte(UInt8(ascii: ":"))
                    image.write(to: &writer)
                }
                writer.writeByte(UInt8(ascii: "}"))
            }
            writer.writeByte(UInt8(ascii: "}"))
        }

        if let target, !target.isEmpty {
            writer.writeRaw(",\"target\":")
            target.write(to: &writer)
        }
        if let metadata, !metadata.isEmpty {
            writer.writeRaw(",\"metadata\":")
            writer.writeObject(metadata)
        }
        if let loggingData, !loggingData.isEmpty {
            writer.writeRaw(",\"logging\":")
            writer.writeObject(loggingData)
        }
        if let customData, !customData.isEmpty {
            writer.writeRaw(",\"custom\":")
            writer.writeObject(customData)
        }
        if !children.isEmpty {
            writer.writeRaw(",\"children\":")
            ComponentModel.write(children, to: &writer)
        }
        writer.writeByte(UInt8(ascii: "}"))
    }
}

extension ComponentImageData {
    /// Appends this image's JSON object: `uri`, `placeholder`, `local`, `custom` (S39 with
    /// DESIGN.md's decision to keep `local` and `custom`).
    public func write(to writer: inout JSONWriter) {
        var isFirst = true
        writer.writeByte(UInt8(ascii: "{"))
        if let uri { writer.writeField("\"uri\":", first: &isFirst); writer.writeString(uri) }
        if let placeholder { writer.writeField("\"placeholder\":", first: &isFirst); writer.writeString(placeholder) }
        if let localImageName { writer.writeField("\"local\":", first: &isFirst); writer.writeString(localImageName) }
        if let customData, !customData.isEmpty { writer.writeField("\"custom\":", first: &isFirst); writer.writeObject(customData) }
        writer.writeByte(UInt8(ascii: "}"))
    }
}

extension ComponentTarget {
    /// `true` when the target would serialize as `{}`: DESIGN.md omits empty values.
    public var isEmpty: Bool {
        uri == nil && actionIdentifiers.isEmpty && (customData?.isEmpty ?? true) && (initialViewModel?.isEmpty ?? true)
    }

    /// Appends this target's JSON object: `uri`, `view`, `actions`, `custom` (S40).
    public func write(to writer: inout JSONWriter) {
        var isFirst = true
        writer.writeByte(UInt8(ascii: "{"))
        if let uri { writer.writeField("\"uri\":", first: &isFirst); writer.writeString(uri) }
        if let initialViewModel, !initialViewModel.isEmpty {
            writer.writeField("\"view\":", first: &isFirst)
            initialViewModel.write(to: &writer)
        }
        if !actionIdentifiers.isEmpty {
            writer.writeField("\"actions\":", first: &isFirst)
            writer.writeByte(UInt8(ascii: "["))
            for (position, action) in actionIdentifiers.enumerated() {
                if position > 0 { writer.writeByte(UInt8(ascii: ",")) }
                writer.writeByte(UInt8(ascii: "\""))
                writer.writeEscapedContents(action.namespace)
                writer.writeByte(UInt8(ascii: ":"))
                writer.writeEscapedContents(action.name)
                writer.writeByte(UInt8(ascii: "\""))
            }
            writer.writeByte(UInt8(ascii: "]"))
        }
        if let customData, !customData.isEmpty { writer.writeField("\"custom\":", first: &isFirst); writer.writeObject(customData) }
        writer.writeByte(UInt8(ascii: "}"))
    }
}

extension JSONWriter {
    /// Writes a separator unless this is the object's first field, then the quoted key and colon.
    @inline(__always) mutating func writeField(_ quotedKeyAndColon: StaticString, first: inout Bool) {
        if first { first = false } else { writeByte(UInt8(ascii: ",")) }
        writeRaw(quotedKeyAndColon)
    }
}
