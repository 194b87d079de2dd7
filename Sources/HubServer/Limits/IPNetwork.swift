#if canImport(Glibc)
import Glibc
#endif

/// An IP network written as CIDR (`10.0.0.0/8`, `2001:db8::/32`; a bare address is a /32 or
/// /128), for `trustedProxies`. IPv4-mapped IPv6 addresses (`::ffff:10.1.2.3`) match IPv4
/// networks.
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    /// 16 bytes: IPv4 networks are stored as IPv4-mapped IPv6.
    let address: [UInt8]
    /// Prefix length in bits of the 16-byte form.
    let prefixLength: Int
    public let description: String

    /// Parses `text`; `nil` when it is not an address with an optional valid prefix length.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2, let (bytes, isIPv4) = Self.parse(String(parts[0])) else { return nil }
        let maximum = isIPv4 ? 32 : 128
        var length = maximum
        if parts.count == 2 {
            guard let value = Int(parts[1]), (0...maximum).contains(value), !parts[1].hasPrefix("+") else { return nil }
            length = value
        }
        prefixLength = isIPv4 ? 96 + length : length
        address = Self.masked(bytes, prefixLength: prefixLength)
        description = text
    }

    /// Whether `text` (an address as the transport reports it) is in this network.
    public func contains(_ text: String) -> Bool {
        guard let (bytes, _) = Self.parse(text) else { return false }
        return Self.masked(bytes, prefixLength: prefixLength) == address
    }

    /// An address's 16-byte form (IPv4 as IPv4-mapped IPv6), and whether it was written as IPv4.
    static func parse(_ text: String) -> ([UInt8], Bool)? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            let value = UInt32(bigEndian: v4.s_addr)
            return ([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] + (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }, true)
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        return (bytes, false)
    }

    private static func masked(_ bytes: [UInt8], prefixLength: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let bits = min(8, max(0, prefixLength - index * 8))
            return bits == 8 ? byte : bits == 0 ? 0 : byte & ~UInt8(0xFF >> bits)
        }
    }
}
