import Foundation
import JWTKit

/// A token's payload as jwt-kit decodes it: every top-level claim as a ``ClaimValue``. Decoding
/// fails (so the token is `malformed`) unless the payload is a JSON object nested at most
/// ``maximumDepth`` deep. The claims are checked by ``ClaimRules``, not by ``verify(using:)``.
struct ClaimSet: JWTPayload, Equatable {
    /// The deepest array nesting decoded; deeper payloads are refused (no stack exhaustion).
    static let maximumDepth = 16

    var values: [String: ClaimValue]

    init(_ values: [String: ClaimValue]) { self.values = values }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ClaimKey.self)
        var values: [String: ClaimValue] = [:]
        for key in container.allKeys {
            values[key.stringValue] = try container.decode(CodableClaim.self, forKey: key).value
        }
        self.values = values
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ClaimKey.self)
        for (name, value) in values {
            try container.encode(CodableClaim(value), forKey: ClaimKey(name))
        }
    }

    /// jwt-kit calls this after the signature verified; the claims are checked afterwards by
    /// ``ClaimRules`` against the verifier's injectable clock, so nothing happens here.
    func verify(using _: some JWTAlgorithm) async throws {}

    /// The string value of `name`, or nil.
    func string(_ name: String) -> String? {
        if case .string(let value) = values[name] { return value }
        return nil
    }
}

/// Any member name of a JSON object.
struct ClaimKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue _: Int) { nil }
}

/// The JSON coding of one ``ClaimValue`` (kept off the public type).
struct CodableClaim: Codable {
    let value: ClaimValue

    init(_ value: ClaimValue) { self.value = value }

    init(from decoder: any Decoder) throws {
        guard decoder.codingPath.count <= ClaimSet.maximumDepth else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "nested too deep"))
        }
        if var array = try? decoder.unkeyedContainer() {
            var members: [ClaimValue] = []
            while !array.isAtEnd { members.append(try array.decode(CodableClaim.self).value) }
            value = .array(members)
            return
        }
        if (try? decoder.container(keyedBy: ClaimKey.self)) != nil {
            value = .object
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            value = .null
        } else if let text = try? single.decode(String.self) {
            value = .string(text)
        } else if let flag = try? single.decode(Bool.self) {
            value = .bool(flag)
        } else {
            value = .number(try single.decode(Double.self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch value {
        case .array(let members):
            var array = encoder.unkeyedContainer()
            for member in members { try array.encode(CodableClaim(member)) }
        case .object:
            _ = encoder.container(keyedBy: ClaimKey.self)
        default:
            var single = encoder.singleValueContainer()
            switch value {
            case .string(let text): try single.encode(text)
            case .bool(let flag): try single.encode(flag)
            case .number(let number): try single.encode(number)
            default: try single.encodeNil()
            }
        }
    }
}
