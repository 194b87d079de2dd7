import Foundation
import HubModel

/// A test-only RFC 6902 JSON Patch applier, written from the RFC and independent of the
/// server's patch code: every operation (`add`, `remove`, `replace`, `move`, `copy`, `test`),
/// RFC 6901 pointers (`~0`, `~1`, `-` for the end of an array). Any error throws.
enum JSONPatchApplier {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static func apply(_ patch: JSONValue, to document: JSONValue) throws -> JSONValue {
        guard let operations = patch.arrayValue else { throw Failure(description: "a patch is an array") }
        var document = document
        for operation in operations {
            guard let op = operation["op"]?.stringValue, let path = operation["path"]?.stringValue else {
                throw Failure(description: "an operation needs op and path: \(operation)")
            }
            let tokens = try pointer(path)
            switch op {
            case "add":
                guard let value = operation["value"] else { throw Failure(description: "add needs a value") }
                document = try add(value, at: tokens, in: document)
            case "remove":
                document = try remove(at: tokens, in: document).document
            case "replace":
                guard let value = operation["value"] else { throw Failure(description: "replace needs a value") }
                _ = try get(tokens, in: document)
                document = try remove(at: tokens, in: document).document
                document = try add(value, at: tokens, in: document)
            case "move":
                guard let from = operation["from"]?.stringValue else { throw Failure(description: "move needs from") }
                let fromTokens = try pointer(from)
                if tokens.count > fromTokens.count && Array(tokens.prefix(fromTokens.count)) == fromTokens {
                    throw Failure(description: "cannot move a value into itself")
                }
                let removed = try remove(at: fromTokens, in: document)
                document = try add(removed.value, at: tokens, in: removed.document)
            case "copy":
                guard let from = operation["from"]?.stringValue else { throw Failure(description: "copy needs from") }
                document = try add(try get(try pointer(from), in: document), at: tokens, in: document)
            case "test":
                guard let value = operation["value"], try get(tokens, in: document) == value else {
                    throw Failure(description: "test failed at \(path)")
                }
            default:
                throw Failure(description: "unknown op \(op)")
            }
        }
        return document
    }

    static func pointer(_ text: String) throws -> [String] {
        if text.isEmpty { return [] }
        guard text.hasPrefix("/") else { throw Failure(description: "a pointer starts with /: \(text)") }
        return text.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map {
            $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
    }

    static func get(_ tokens: [String], in value: JSONValue) throws -> JSONValue {
        guard let first = tokens.first else { return value }
        switch value {
        case .object(let object):
            guard let child = object[first] else { throw Failure(description: "no member \(first)") }
            return try get(Array(tokens.dropFirst()), in: child)
        case .array(let array):
            guard let index = Int(first), array.indices.contains(index) else { throw Failure(description: "no index \(first)") }
            return try get(Array(tokens.dropFirst()), in: array[index])
        default:
            throw Failure(description: "cannot descend into a scalar at \(first)")
        }
    }

    static func add(_ new: JSONValue, at tokens: [String], in value: JSONValue) throws -> JSONValue {
        guard let first = tokens.first else { return new }
        let rest = Array(tokens.dropFirst())
        switch value {
        case .object(var object):
            if rest.isEmpty {
                object[first] = new
            } else {
                guard let child = object[first] else { throw Failure(description: "no member \(first)") }
                object[first] = try add(new, at: rest, in: child)
            }
            return .object(object)
        case .array(var array):
            if rest.isEmpty {
                if first == "-" {
                    array.append(new)
                } else {
                    guard let index = Int(first), index >= 0, index <= array.count else {
                        throw Failure(description: "add: bad index \(first) of \(array.count)")
                    }
                    array.insert(new, at: index)
                }
            } else {
                guard let index = Int(first), array.indices.contains(index) else { throw Failure(description: "no index \(first)") }
                array[index] = try add(new, at: rest, in: array[index])
            }
            return .array(array)
        default:
            throw Failure(description: "cannot add into a scalar")
        }
    }

    static func remove(at tokens: [String], in value: JSONValue) throws -> (document: JSONValue, value: JSONValue) {
        guard let first = tokens.first else { throw Failure(description: "cannot remove the root") }
        let rest = Array(tokens.dropFirst())
        switch value {
        case .object(var object):
            guard let child = object[first] else { throw Failure(description: "remove: no member \(first)") }
            if rest.isEmpty {
                object[first] = nil
                return (.object(object), child)
            }
            let inner = try remove(at: rest, in: child)
            object[first] = inner.document
            return (.object(object), inner.value)
        case .array(var array):
            guard let index = Int(first), array.indices.contains(index) else {
                throw Failure(description: "remove: no index \(first) of \(array.count)")
            }
            if rest.isEmpty {
                let removed = array.remove(at: index)
                return (.array(array), removed)
            }
            let inner = try remove(at: rest, in: array[index])
            array[index] = inner.document
            return (.array(array), inner.value)
        default:
            throw Failure(description: "cannot remove from a scalar")
        }
    }
}
