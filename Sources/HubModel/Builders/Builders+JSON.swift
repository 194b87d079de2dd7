extension ViewModelBuilder {
    /// Parses `bytes` and merges the document into this builder (S1..S4, S26..S34).
    ///
    /// A root object is a view model (S1); a root array is a list of body components (S2);
    /// any other root is ``JSONParseError/Reason/notAContainer`` (S3). On any error the
    /// builder is unchanged.
    public mutating func addJSON(
        _ bytes: some Collection<UInt8>, schema: JSONSchema = .default, parser: JSONParser = JSONParser()
    ) throws(JSONParseError) {
        let value = try parser.parse(bytes)
        try add(json: value, schema: schema)
    }

    /// Merges an already parsed document into this builder (see ``addJSON(_:schema:parser:)``).
    public mutating func add(json value: JSONValue, schema: JSONSchema = .default) throws(JSONParseError) {
        let document = schema.normalize(value)
        switch document {
        case .object(let object): DefaultSchemaReader.apply(viewObject: object, to: &self)
        case .array(let elements): DefaultSchemaReader.apply(componentArray: elements, to: &body)
        default: throw JSONParseError(reason: .notAContainer, offset: 0, line: 1, column: 1)
        }
    }

    /// A builder holding `value`, parsed with `schema` (S34).
    public init(json value: JSONValue, schema: JSONSchema = .default, defaults: ComponentDefaults = .standard)
        throws(JSONParseError)
    {
        self.init(defaults: defaults)
        try add(json: value, schema: schema)
    }
}

extension ComponentModelBuilder {
    /// Merges a component object into this builder (table 1.2, S5: only a root object).
    public mutating func addJSON(_ bytes: some Collection<UInt8>, parser: JSONParser = JSONParser()) throws(JSONParseError) {
        try add(json: try parser.parse(bytes))
    }

    /// Merges an already parsed component object (S5: anything but an object is rejected).
    public mutating func add(json value: JSONValue) throws(JSONParseError) {
        guard let object = value.objectValue else {
            throw JSONParseError(reason: .notAContainer, offset: 0, line: 1, column: 1)
        }
        DefaultSchemaReader.apply(componentObject: object, to: &self)
    }
}

extension ComponentImageDataBuilder {
    /// Merges an image object into this builder (table 1.3, S5).
    public mutating func add(json value: JSONValue) throws(JSONParseError) {
        guard let object = value.objectValue else {
            throw JSONParseError(reason: .notAContainer, offset: 0, line: 1, column: 1)
        }
        DefaultSchemaReader.apply(imageObject: object, to: &self)
    }
}

extension ComponentTargetBuilder {
    /// Merges a target object into this builder (table 1.4, S5).
    public mutating func add(json value: JSONValue, defaults: ComponentDefaults = .standard) throws(JSONParseError) {
        guard let object = value.objectValue else {
            throw JSONParseError(reason: .notAContainer, offset: 0, line: 1, column: 1)
        }
        DefaultSchemaReader.apply(targetObject: object, to: &self, defaults: defaults)
    }
}
