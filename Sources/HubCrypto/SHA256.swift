import CCrypto

/// SHA-256 by libcrypto: the one digest of the server (the preview's CSP hashes, forwarded-header
/// cache keys, idempotency keys and request bodies, user-scoped state keys).
public enum SHA256 {
    /// The 32-byte digest of `bytes`.
    public static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let done = bytes.withUnsafeBytes { input in
            digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        precondition(done == 1 && length == 32, "SHA-256 failed")
        return digest
    }
}
