import Foundation
import HubPrimitives
import HubSync

/// The files one config load read, each with an FNV-1a digest of its bytes (collisions are
/// irrelevant here: a reload compares a file with its own earlier version).
package final class FileLedger: Sendable {
    private let entries = Locked<[String: UInt64]>([:])

    package func record(_ file: String, _ data: Data) {
        let digest = FNV1a.hash(data)
        entries.withLock { $0[file] = digest }
    }

    /// Records a digest computed elsewhere (a directory's, ``DirectoryDigest``).
    package func record(_ key: String, digest: UInt64) {
        entries.withLock { $0[key] = digest }
    }

    package var digests: [String: UInt64] { entries.withLock { $0 } }
}
