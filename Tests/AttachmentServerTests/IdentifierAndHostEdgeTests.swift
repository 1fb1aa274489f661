@testable import AttachmentServer
import Testing

/// Two edges the unit tests of issue 15 found: path identifiers must be ASCII hexadecimal
/// (Swift's `isHexDigit` also takes fullwidth digits), and an allowed host name given with a
/// port is refused at start-up instead of silently matching no request.
@Suite("Identifier and allowed-host edges")
struct IdentifierAndHostEdgeTests {
    static let valid = "0b7e1c7a-1111-4222-8333-444455556666"

    @Test("a UUID with a fullwidth digit or letter is no identifier", arguments: [
        "0b7e1c7a-1111-4222-8333-444455556\u{FF16}", "\u{FF10}b7e1c7a-1111-4222-8333-44445555666", "0b7e1c7a-1111-4222-8333-44445555666\u{FF21}",
    ])
    func fullwidthDigits(text: String) {
        #expect(throws: ServerError.self) { try Identifier.parse(text, kind: "note") }
    }

    @Test("an ASCII UUID in either case is an identifier, lowercased")
    func asciiIdentifiers() throws {
        #expect(try Identifier.parse(Self.valid, kind: "note") == Self.valid)
        #expect(try Identifier.parse(Self.valid.uppercased(), kind: "note") == Self.valid)
    }

    @Test("an allowed host with a port, or junk with a colon, is refused at start-up", arguments: [
        "nas.local:8080", "a:b", "photos.example.com:443", "[::1]:8080", "::g",
    ])
    func hostsWithPorts(name: String) {
        var configuration = ServerConfiguration()
        configuration.allowedHosts = [name]
        #expect(throws: ServerConfiguration.Problem.invalidAllowedHost(name)) { try configuration.validate() }
    }

    @Test("host names, IPv4 addresses and IPv6 addresses with or without brackets are allowed names", arguments: [
        "nas.local", "photos.example.com.", "192.168.1.10", "fe80::1", "[fe80::1]", "::ffff:192.168.1.10",
    ])
    func validNames(name: String) throws {
        var configuration = ServerConfiguration()
        configuration.allowedHosts = [name]
        try configuration.validate()
        let hosts = AllowedHosts(bindHost: "0.0.0.0", publicURL: nil, extra: [name])
        let bare = AllowedHosts.normalized(name)
        #expect(hosts.allows(authority: bare.contains(":") ? "[\(bare)]:8080" : "\(bare):8080"))
    }
}
