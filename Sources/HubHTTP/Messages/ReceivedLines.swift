import HubPrimitives

/// A request's field lines copied as they were received, but for those of some names: whether
/// another request came with the same lines is one comparison of bytes per line, with nothing
/// parsed, looked up or made into a string. For a cache of what a request's fields decide, keyed
/// by the fields themselves (a client polling a view sends the same fields every time, and only
/// its `traceparent` names each request).
///
/// Lines are compared exactly as received (names' case, spacing and order included), so a
/// match is never wrong about two requests' fields; only headers a parser made and nothing
/// changed since are compared (``copy(from:)``), never fields made in code.
public struct ReceivedLines: Sendable {
    /// The names (lowercase ASCII) whose lines are left out, of any number, wherever they are.
    public let ignoredNames: [String]
    /// ``ignoredNames``' bytes, compared with each line's name (a string's UTF-8 view was reached
    /// through on every line of every request).
    private let ignoredNameBytes: [[UInt8]]
    /// The lines copied, end to end, each with its CRLF.
    private var bytes: [UInt8] = []
    /// Whether ``bytes`` hold a copy (false before the first and after a failed one).
    private var holdsLines = false

    /// Nothing copied yet; lines named in `ignoredNames` (lowercase) will be left out.
    public init(ignoring ignoredNames: [String]) {
        self.ignoredNames = ignoredNames
        ignoredNameBytes = ignoredNames.map { Array($0.utf8) }
    }

    /// Copies the lines `headers` were received with (in the buffer already held when it is
    /// large enough). `false`, and nothing held, when `headers` are not as a parser received
    /// them (made in code, or changed since).
    @discardableResult
    public mutating func copy(from headers: HTTPHeaders) -> Bool {
        bytes.removeAll(keepingCapacity: true)
        holdsLines = false
        guard let received = headers.received else { return false }
        let ignored = ignoredNameBytes
        _ = received.forEachLine(skipping: { Self.isNamed($0, in: ignored) }) { line in
            bytes.append(contentsOf: line)
            return true
        }
        holdsLines = true
        return true
    }

    /// Whether `headers` were received with exactly the lines copied, those of the ignored names
    /// aside. `false` when nothing is held or `headers` are not as a parser received them.
    public func matches(_ headers: HTTPHeaders) -> Bool {
        guard holdsLines, let received = headers.received else { return false }
        let ignored = ignoredNameBytes
        return bytes.withUnsafeBufferPointer { copied in
            var offset = 0
            let wentThrough = received.forEachLine(skipping: { Self.isNamed($0, in: ignored) }) { line in
                guard line.count <= copied.count - offset,
                    ASCII.bytesEqual(line, UnsafeBufferPointer(rebasing: copied[offset..<offset + line.count]))
                else { return false }
                offset += line.count
                return true
            }
            return wentThrough && offset == copied.count
        }
    }

    /// Whether `name` is one of `names` (lowercase), ASCII case-insensitively.
    private static func isNamed(_ name: UnsafeBufferPointer<UInt8>, in names: [[UInt8]]) -> Bool {
        for candidate in names where candidate.count == name.count {
            if candidate.withUnsafeBufferPointer({ ASCII.caseInsensitiveEquals(name, $0) }) { return true }
        }
        return false
    }
}
