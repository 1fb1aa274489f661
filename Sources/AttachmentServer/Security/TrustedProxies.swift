#if canImport(Glibc)
import Glibc
#endif

/// The addresses of the reverse proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` the
/// server believes (`--trusted-proxy`). Each entry is an address (`127.0.0.1`, `::1`) or a
/// network (`10.0.0.0/8`, `fd00::/8`). Empty, the default, believes no one: forwarded headers
/// are then ignored, because any client could write them.
package struct TrustedProxies: Sendable, Equatable {
    /// One address or network, as bytes (4 or 16) and how many leading bits must match.
    struct Network: Sendable, Equatable {
        var bytes: [UInt8]
        var prefixLength: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var remaining = prefixLength
            for (mine, theirs) in zip(bytes, address) where remaining > 0 {
                let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
                guard mine & mask == theirs & mask else { return false }
                remaining -= 8
            }
            return true
        }
    }

    let networks: [Network]

    /// Believes no one.
    package static let none = TrustedProxies(networks: [])

    private init(networks: [Network]) {
        self.networks = networks
    }

    /// Parses `entries`, each an IPv4 or IPv6 address with an optional `/prefix`.
    /// - Throws: ``ServerConfiguration/Problem/invalidTrustedProxy(_:)`` naming the first entry
    ///   that is neither.
    package init(parsing entries: [String]) throws(ServerConfiguration.Problem) {
        var networks: [Network] = []
        for entry in entries {
            let parts = entry.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let bytes = Self.bytes(of: String(parts[0])) else { throw .invalidTrustedProxy(entry) }
            let bits = bytes.count * 8
            var prefix = bits
            if parts.count == 2 {
                guard let parsed = Int(parts[1]), (0...bits).contains(parsed), parts[1].allSatisfy(\.isASCIIDigit) else {
                    throw .invalidTrustedProxy(entry)
                }
                prefix = parsed
            }
            networks.append(Network(bytes: bytes, prefixLength: prefix))
        }
        self.init(networks: networks)
    }

    /// Whether `address` (a textual IP address) is one of the trusted proxies.
    package func contains(_ address: String) -> Bool {
        guard let bytes = Self.bytes(of: address) else { return false }
        return networks.contains { $0.contains(bytes) }
    }

    /// Whether any proxy is trusted at all.
    package var isEmpty: Bool { networks.isEmpty }

    /// The bytes of an IPv4 or IPv6 address in text (an IPv4-mapped IPv6 address as its IPv4
    /// bytes, so `::ffff:127.0.0.1` is `127.0.0.1`); `nil` for anything else.
    static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF { return Array(bytes[12...]) }
        return bytes
    }
}
