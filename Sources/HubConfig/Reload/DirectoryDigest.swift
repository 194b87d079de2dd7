import Foundation
import HubPrimitives

/// A digest of every file under a directory (names and bytes, recursively), for features whose
/// templated `file:` URL reads files the request chooses: a reload compares the digest taken when
/// each config was loaded, so a reload with nothing changed under the directory re-runs nothing.
///
/// Bounded: at most ``maximumFiles`` files and ``maximumBytes`` bytes are read; past that the
/// digest also covers each remaining file's size and modification time (a change still shows,
/// without reading a huge tree on every reload).
package enum DirectoryDigest {
    package static let maximumFiles = 10_000
    package static let maximumBytes = 64 << 20

    /// The ledger key of a directory's digest.
    package static func key(_ directory: String) -> String { "dir:" + directory }

    /// The digest of `directory` (relative to `root`, or absolute); 0 when it cannot be listed.
    package static func digest(_ directory: String, in root: String) -> UInt64 {
        let path = directory.hasPrefix("/") ? directory : (root as NSString).appendingPathComponent(directory)
        guard let enumerator = FileManager.default.enumerator(atPath: path) else { return 0 }
        var files: [String] = []
        while let next = enumerator.nextObject() as? String {
            guard files.count < maximumFiles * 2 else { break }
            if enumerator.fileAttributes?[.type] as? FileAttributeType == .typeRegular { files.append(next) }
        }
        var hasher = Data()
        var bytesRead = 0
        for (index, file) in files.sorted().enumerated() {
            let full = (path as NSString).appendingPathComponent(file)
            hasher.append(contentsOf: Array(file.utf8) + [0])
            if index < maximumFiles, bytesRead < maximumBytes, let data = FileManager.default.contents(atPath: full) {
                bytesRead += data.count
                withUnsafeBytes(of: FNV1a.hash(data).littleEndian) { hasher.append(contentsOf: $0) }
            } else if let attributes = try? FileManager.default.attributesOfItem(atPath: full) {
                let size = (attributes[.size] as? NSNumber)?.uint64Value ?? 0
                let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
                withUnsafeBytes(of: size.littleEndian) { hasher.append(contentsOf: $0) }
                withUnsafeBytes(of: modified.bitPattern.littleEndian) { hasher.append(contentsOf: $0) }
            }
        }
        return FNV1a.hash(hasher)
    }
}
