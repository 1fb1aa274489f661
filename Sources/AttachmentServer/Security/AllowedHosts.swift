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
    /// brackets; `nil` when it is not a plausible host at all.
    static func host(ofAuthority authority: String) -> String? {
        var text = Substring(authority)
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isASCIIDigit) && rest.count > 1) else { return nil }
            text = text[text.index(after: text.startIndex)..<close]
        } else if let colon = text.lastIndex(of: ":") {
            let port = text[text.index(after: colon)...]
            guard !port.isEmpty, port.allSatisfy(\.isASCIIDigit) else { return nil }
            text = text[..<colon]
        }
        let host = normalized(String(text))
        guard !host.isEmpty, host.utf8.count <= 253,
              host.allSatisfy({ $0.isASCIILetterOrDigit || $0 == "." || $0 == "-" || $0 == ":" || $0 == "_" }) else { return nil }
        return host
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
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
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
    var isASCIILetterOrDigit: Bool { isASCII && (isLetter || isNumber) }
}
