import Foundation
import HubSync

/// The files one config load read, each with an FNV-1a digest of its bytes (collisions are
/// irrelevant here: a reload compares a file with its own earlier version).
final class FileLedger: Sendable {
    private let entries = Locked<[String: UInt64]>([:])

    func record(_ file: String, _ data: Data) {
        let digest = FNV1a.hash(data)
        entries.withLock { $0[file] = digest }
    }

    var digests: [String: UInt64] { entries.withLock { $0 } }
}
