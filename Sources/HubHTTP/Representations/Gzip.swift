import CZlib

/// One-shot gzip (RFC 1952) through zlib.
public enum Gzip {
    /// `input` gzip-compressed at `level` (1...9), or nil if zlib fails.
    public static func compress(_ input: [UInt8], level: Int = 6) -> [UInt8]? {
        var stream = z_stream()
        guard hub_deflate_init_gzip(&stream, Int32(max(1, min(9, level)))) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(input.count)))
        var status = Z_STREAM_ERROR
        let output = [UInt8](unsafeUninitializedCapacity: bound) { buffer, count in
            input.withUnsafeBufferPointer { source in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.avail_in = uInt(source.count)
                stream.next_out = buffer.baseAddress
                stream.avail_out = uInt(bound)
                status = deflate(&stream, Z_FINISH)
            }
            count = status == Z_STREAM_END ? Int(stream.total_out) : 0
        }
        return status == Z_STREAM_END ? output : nil
    }

    /// `input` gzip-compressed at `level`, or nil when zlib fails or the result is not smaller.
    public static func compressIfSmaller(_ input: [UInt8], level: Int = 6) -> [UInt8]? {
        compress(input, level: level).flatMap { $0.count < input.count ? $0 : nil }
    }

    /// Decompresses gzip or zlib data (for tests and clients), or nil if it is invalid or larger than `limit`.
    public static func decompress(_ input: [UInt8], limit: Int = 64 << 20) -> [UInt8]? {
        var stream = z_stream()
        guard hub_inflate_init_auto(&stream) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        return input.withUnsafeBufferPointer { source -> [UInt8]? in
            stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
            stream.avail_in = uInt(source.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { buffer -> (Int32, Int) in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(buffer.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    return (status, buffer.count - Int(stream.avail_out))
                }
                output.append(contentsOf: chunk[0..<produced])
                if output.count > limit { return nil }
                if status == Z_STREAM_END { return output }
                if status != Z_OK || (produced == 0 && stream.avail_in == 0) { return nil }
            }
        }
    }
}
