import Foundation
@testable import S3Client
import Testing

/// The two textual checks that keep credential requests where they belong: which hosts a
/// container full URI may name over plain http, and which instance metadata answers are
/// role names safe to put in a path.
@Suite("S3 credentials: plain-http hosts and role names")
struct CredentialHostRulesTests {
    @Test("loopback IPv4 anywhere in 127.0.0.0/8 is allowed over plain http", arguments: [
        "127.0.0.1", "127.0.0.0", "127.255.255.255", "127.1.2.3", "127.0.0.255",
    ])
    func loopbackIPv4(host: String) {
        #expect(ContainerCredentials.isAllowedPlainHTTPHost(host))
    }

    @Test("the IPv6 loopback, bare or bracketed, and the agents' addresses are allowed", arguments: [
        "::1", "[::1]", "localhost", "169.254.170.2", "169.254.170.23", "fd00:ec2::23", "[fd00:ec2::23]",
    ])
    func namedHosts(host: String) {
        #expect(ContainerCredentials.isAllowedPlainHTTPHost(host))
    }

    @Test("other spellings of loopback, and v4-mapped forms, are not recognised and so refused", arguments: [
        "0:0:0:0:0:0:0:1", "[0:0::1]", "::ffff:127.0.0.1", "[::ffff:127.0.0.1]", "127.1", "2130706433", "0x7f.0.0.1",
    ])
    func unrecognisedLoopbackForms(host: String) {
        #expect(!ContainerCredentials.isAllowedPlainHTTPHost(host))
    }

    @Test("near misses of the allowed addresses are refused", arguments: [
        "", "127.0.0.", ".127.0.0.1", "127.0.0.1.", "127.0.0.1.2", "127.256.0.1", "127.0.0.1000", "128.0.0.1",
        "127.0.0.1:80", " 127.0.0.1", "127.0.0.1 ", "127.o.0.1", "127..0.1", "localhost.", "localhost.evil.example",
        "169.254.170.2.", "169.254.170.3", "169.254.170.22", "fd00:ec2::24", "::2", "[::1", "::1]", "evil.example",
        "127.0.0.1.nip.io", "١٢٧.0.0.1",
    ])
    func nearMisses(host: String) {
        #expect(!ContainerCredentials.isAllowedPlainHTTPHost(host))
    }

    @Test("role names of letters, digits and +=,.@_- up to 64 bytes are accepted", arguments: [
        "a", "R", "7", "photo-server-role", "a.b@c=d,e+f_g-h", "Role_With.Dots", "user@example.com",
        "x=y", String(repeating: "a", count: 64), String(repeating: "9", count: 64),
    ])
    func acceptedRoleNames(name: String) {
        #expect(InstanceMetadataCredentials.isRoleName(name))
    }

    @Test("65 characters, or none, is not a role name")
    func lengthLimits() {
        #expect(!InstanceMetadataCredentials.isRoleName(""))
        #expect(!InstanceMetadataCredentials.isRoleName(String(repeating: "a", count: 65)))
        #expect(!InstanceMetadataCredentials.isRoleName(String(repeating: "a", count: 63) + "é"), "65 bytes in UTF-8")
    }

    @Test("path separators, whitespace, control characters and query or fragment marks are refused", arguments: [
        "a/b", "../user-data", "a\\b", "a b", " a", "a\n", "a\r\nb", "a\t", "a\u{0}", "a?b", "a#b", "a%2Fb", "a;b",
        "a:b", "a&b", "a*", "a~b", "a'b", "a\"b", "<a>", "a|b",
    ])
    func refusedCharacters(name: String) {
        #expect(!InstanceMetadataCredentials.isRoleName(name))
    }

    @Test("letters and digits outside ASCII are refused", arguments: [
        "é", "rôle", "Ω", "ａ", "٣", "名前", "a\u{301}", "🙂", "role\u{200B}",
    ])
    func nonASCIIRefused(name: String) {
        #expect(!InstanceMetadataCredentials.isRoleName(name))
    }

    @Test("signed or over-long numbers in a dotted address are not loopback", arguments: [
        "127.+1.0.1", "127.-0.0.1", "127.0.0.0001", "127.0.0.+1", "127. 0.0.1",
    ])
    func signedOctetsRefused(host: String) {
        #expect(!ContainerCredentials.isAllowedPlainHTTPHost(host))
    }

    @Test("a role name of dots only, which would climb a path segment, is refused", arguments: [".", "..", "..."])
    func dotsOnlyRefused(name: String) {
        #expect(!InstanceMetadataCredentials.isRoleName(name))
        #expect(InstanceMetadataCredentials.isRoleName(name + "a"), "dots with a letter are a name")
    }
}
