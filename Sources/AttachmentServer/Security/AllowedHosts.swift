import Foundation

/// The host names this server answers to, the defence against DNS rebinding: a web page on
/// another site whose name an attacker points at 127.0.0.1 still sends its own name in `Host`,
/// which is not on this list.
///
/// Always allowed: loopback literals (`127.x.x.x`, `::1`) and `localhost`. Also allowed: the
/// address the server binds when it is a specific one, the host of ``ServerConfiguration/publicURL``,
/// and every name in ``ServerConfiguration/allowedHosts``. Ports are not compared: a rebinding
/// attack can use any port, but never a name on this list.
struct AllowedHosts: Sendable {
    private let names: Set<String>

    /// The list for a server bound to `bindHost`, reached as `publicURL`, told `extra` names.
    init(bindHost: String, publicURL: URL?, extra: [String]) {
        var names = Set(extra.map { Self.normalized($0) })
        let bind = Self.normalized(bindHost)
        if !["0.0.0.0", "::", ""].contains(bind) { names.insert(bind) }
        if let host = publicURL?.host(percentEncoded: false) { names.insert(Self.normalized(host)) }
        self.names = names
    }

    /// Whether a request whose `Host` (or `:authority`) is `authority` may be answered.
    func allows(authority: String) -> Bool {
        guard let host = Self.host(ofAuthority: authority) else { return false }
        return Self.isLoopback(host) || names.contains(host)
    }

    /// The host of `host[:port]` or `[v6]:port`, lowercased, without a trailing dot or the
    /// brackets; `nil` when it is not a plausible host at all: a host is 1–253 bytes of ASCII
    /// letters, digits, `.`, `-`, `_` and (inside brackets) `:`, and a port is ASCII digits.
    /// Read byte by byte, since every request asks.
    static func host(ofAuthority authority: String) -> String? {
        var authority = authority
        return authority.withUTF8 { bytes -> String? in
            let (colon, open, close) = (UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"))
            func isPort(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> Bool { !digits.isEmpty && digits.allSatisfy(\.isASCIIDigit) }
            var host = bytes[...]
            if host.first == open {
                guard let end = host.firstIndex(of: close) else { return nil }
                let rest = host[(end + 1)...]
                guard rest.isEmpty || (rest.first == colon && isPort(rest.dropFirst())) else { return nil }
                host = host[(host.startIndex + 1)..<end]
            } else if let end = host.lastIndex(of: colon) {
                guard isPort(host[(end + 1)...]) else { return nil }
                host = host[..<end]
            }
            if host.count >= 2, host.first == open, host.last == close { host = host.dropFirst().dropLast() }
            if host.last == UInt8(ascii: ".") { host = host.dropLast() }
            guard !host.isEmpty, host.count <= 253 else { return nil }
            var lowered: [UInt8] = []
            lowered.reserveCapacity(host.count)
            for byte in host {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                     UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"), colon:
                    lowered.append(byte)
                case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                    lowered.append(byte | 0x20)
                default:
                    return nil  // anything else, non-ASCII included
                }
            }
            return String(decoding: lowered, as: UTF8.self)
        }
    }

    /// Whether `name` can be on the list: a host name or IPv4 address, or an IPv6 address with
    /// or without brackets — never with a port (`nas.local:8080` would match no request, since
    /// requests are compared without theirs).
    static func isHostName(_ name: String) -> Bool {
        let bare = normalized(name)
        guard bare.contains(":") else { return host(ofAuthority: bare) == bare }
        return bare.filter { $0 == ":" }.count >= 2 && bare.allSatisfy { ($0.isASCII && $0.isHexDigit) || $0 == ":" || $0 == "." }
    }

    /// Whether `host` (already normalized) names this machine's loopback interface.
    static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" { return true }
        // 127.a.b.c, each part 1–3 digits no more than 255; one pass, no allocation.
        guard host.utf8.starts(with: "127.".utf8) else { return false }
        var (parts, digits, value) = (2, 0, 0)  // in the second part, after "127."
        for byte in host.utf8.dropFirst(4) {
            if byte == UInt8(ascii: ".") {
                guard digits > 0 else { return false }
                (parts, digits, value) = (parts + 1, 0, 0)
            } else if byte.isASCIIDigit {
                (digits, value) = (digits + 1, value * 10 + Int(byte - UInt8(ascii: "0")))
                guard digits <= 3, value <= 255 else { return false }
            } else {
                return false
            }
        }
        return parts == 4 && digits > 0
    }

    /// Lowercased, without brackets or a trailing dot.
    static func normalized(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        return host
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
