import HubSync
import Synchronization

/// Fixed bytes shared by many responses (a representation's identity or gzip encoding), which
/// the transport may send from a file of their own (``BodyFile``) instead of copying them each time.
///
/// The file is made on the second send of bytes of at least 16 KiB (a body sent once, such as a
/// session's own rendering, never pays for it) and within the process's budget of such files;
/// until then, and past the budget, the bytes are sent as they are.
public final class SharedBytes: Sendable {
    /// The content.
    public let bytes: [UInt8]
    private let sends = Atomic<Int>(0)
    private let mirror = WriteOnceReference<BodyFile>()

    /// Bytes to be sent by many responses.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The file to send from, when these bytes have earned one; nil to send the bytes.
    func fileForSending() -> BodyFile? {
        guard bytes.count >= BodyFile.minBytes else { return nil }
        if let file = mirror.load() { return file }
        guard sends.add(1, ordering: .relaxed).newValue >= 2, let file = BodyFile(bytes) else { return nil }
        // Two first senders may both make one: the first stored wins, the other is closed.
        return mirror.storeIfNil(file)
    }
}
