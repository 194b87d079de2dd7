#if canImport(Glibc)
import Glibc
#endif

/// An IP network written as CIDR (`10.0.0.0/8`, `2001:db8::/32`; a bare address is a /32 or
/// /128), for `trustedProxies`. IPv4-mapped IPv6 addresses (`::ffff:10.1.2.3`) match IPv4
/// networks.
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The network's address, its host bits zero.
    package let address: IPAddress
    /// Prefix length in bits of the 128-bit form (an IPv4 /8 is 104).
    package let prefixLength: Int
    public let description: String

    /// Parses `text`; `nil` when it is not an address with an optional valid prefix length.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2, let parsed = IPAddress(String(parts[0])) else { return nil }
        let maximum = parsed.isIPv4 ? 32 : 128
        var length = maximum
        if parts.count == 2 {
            guard let value = Int(parts[1]), (0...maximum).contains(value), !parts[1].hasPrefix("+") else { return nil }
            length = value
        }
        prefixLength = parsed.isIPv4 ? 96 + length : length
        address = parsed.masked(toPrefix: prefixLength)
        description = text
    }

    /// Whether `text` (an address as the transport reports it) is in this network.
    public func contains(_ text: String) -> Bool {
        guard let parsed = IPAddress(text) else { return false }
        return contains(parsed)
    }

    /// Whether `address` is in this network.
    package func contains(_ other: IPAddress) -> Bool {
        other.masked(toPrefix: prefixLength) == address
    }
}

/// An IPv4 or IPv6 address as 128 bits (IPv4 as IPv4-mapped IPv6, `::ffff:a.b.c.d`), parsed
/// without allocating.
package struct IPAddress: Sendable, Hashable {
    package var high: UInt64
    package var low: UInt64

    /// Whether the address is IPv4 (written so, or IPv4-mapped IPv6).
    package var isIPv4: Bool { high == 0 && low >> 32 == 0xFFFF }

    /// Parses an address in its numeric form (`203.0.113.7`, `2001:db8::1`, `::ffff:10.0.0.1`).
    package init?(_ text: String) {
        var text = text
        let parsed: (UInt64, UInt64)? = text.withUTF8 { bytes in
            guard bytes.count <= 45 else { return nil }  // INET6_ADDRSTRLEN - 1
            return Self.parse(bytes)
        }
        guard let (high, low) = parsed else { return nil }
        self.high = high
        self.low = low
    }

    package init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64)? {
        // A NUL-terminated copy on the stack (inet_pton reads a C string).
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { buffer in
            for index in 0..<bytes.count { buffer[index] = CChar(bitPattern: bytes[index]) }
            buffer[bytes.count] = 0
            var v4 = in_addr()
            if inet_pton(AF_INET, buffer.baseAddress, &v4) == 1 {
                return (0, 0xFFFF_0000_0000 | UInt64(UInt32(bigEndian: v4.s_addr)))
            }
            var v6 = in6_addr()
            guard inet_pton(AF_INET6, buffer.baseAddress, &v6) == 1 else { return nil }
            return withUnsafeBytes(of: &v6) { raw in
                var high: UInt64 = 0
                var low: UInt64 = 0
                for index in 0..<8 { high = high << 8 | UInt64(raw[index]) }
                for index in 8..<16 { low = low << 8 | UInt64(raw[index]) }
                return (high, low)
            }
        }
    }

    /// This address with every bit past the first `prefixLength` (of 128) zero.
    package func masked(toPrefix prefixLength: Int) -> IPAddress {
        let length = max(0, min(128, prefixLength))
        let highMask: UInt64 = length >= 64 ? .max : length == 0 ? 0 : ~(UInt64.max >> length)
        let lowMask: UInt64 = length <= 64 ? 0 : length == 128 ? .max : ~(UInt64.max >> (length - 64))
        return IPAddress(high: high & highMask, low: low & lowMask)
    }

    /// The address as text: dotted IPv4 for IPv4 (mapped ones too), else IPv6's shortest form.
    package var text: String {
        if isIPv4 {
            let value = UInt32(truncatingIfNeeded: low)
            return "\(value >> 24).\(value >> 16 & 0xFF).\(value >> 8 & 0xFF).\(value & 0xFF)"
        }
        var raw = in6_addr()
        withUnsafeMutableBytes(of: &raw) { bytes in
            for index in 0..<8 { bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * index)) }
            for index in 0..<8 { bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * index)) }
        }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        guard inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count)) != nil else { return "::" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// An `X-Forwarded-For` entry's address: a bare address, `ip:port` (IPv4) or `[v6]:port`
    /// and `[v6]` (what several load balancers write); `nil` when it is none of these.
    package static func forwarded(_ entry: Substring) -> IPAddress? {
        var text = entry
        if text.first == "[" {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let after = text[text.index(after: close)...]
            guard after.isEmpty || (after.first == ":" && after.dropFirst().allSatisfy(\.isASCIIDigit) && after.count > 1)
            else { return nil }
            text = text[text.index(after: text.startIndex)..<close]
            return IPAddress(String(text))
        }
        // One colon: IPv4 with a port (an IPv6 address has two or more).
        if let colon = text.firstIndex(of: ":"), text[text.index(after: colon)...].firstIndex(of: ":") == nil {
            let port = text[text.index(after: colon)...]
            guard !port.isEmpty, port.allSatisfy(\.isASCIIDigit) else { return nil }
            guard let address = IPAddress(String(text[..<colon])), address.isIPv4 else { return nil }
            return address
        }
        return IPAddress(String(text))
    }
}

extension Character {
    /// `0`-`9`.
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
