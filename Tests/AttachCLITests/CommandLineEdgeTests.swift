@testable import attach
import ArgumentParser
import CatalogSQL
import Foundation
import Testing
import TestSupport

/// Edges of the command line the unit tests of issue 15 found wrong: a duration too large for
/// a number, sizes that rounded to "1000 kB", a secret file of two lines, and a secret given on
/// the command line in one form while the environment held the other.
@Suite("Command-line edges")
struct CommandLineEdgeTests {
    @Test("a duration too large to count in seconds is refused, not a crash", arguments: ["106751991167301d", "9223372036854775807h", "153722867280912931m"])
    func hugeDurations(text: String) {
        #expect(Formatting.duration(text) == nil)
    }

    @Test("durations that fit are read in their unit", arguments: [("2d", 172_800), ("15m", 900), ("90", 90), ("0", 0)] as [(String, Int64)])
    func durations(text: String, seconds: Int64) {
        #expect(Formatting.duration(text) == .seconds(seconds))
    }

    @Test("sizes at the edge of a unit are shown in the next one, and whole from ten up", arguments: [
        (Int64(999), "999 B"), (1_000, "1.0 kB"), (9_949, "9.9 kB"), (9_999, "10 kB"), (999_499, "999 kB"),
        (999_999, "1.0 MB"), (1_234_567, "1.2 MB"), (999_999_999, "1.0 GB"),
    ])
    func sizes(count: Int64, text: String) {
        #expect(Formatting.bytes(count) == text)
    }

    @Test("a secret file is one line: its line breaks at the ends are dropped, two lines are refused")
    func secretFiles() throws {
        let directory = try TemporaryDirectory("secret")
        let one = directory.url.appending(path: "one")
        try Data("s3cret\r\n".utf8).write(to: one)
        #expect(try SecretFile.read(one.path(percentEncoded: false), for: "--token-file") == "s3cret")
        let two = directory.url.appending(path: "two")
        try Data("first\nsecond\n".utf8).write(to: two)
        #expect(throws: ValidationError.self) { try SecretFile.read(two.path(percentEncoded: false), for: "--token-file") }
    }

    @Test("a token file on the command line keeps ATTACH_TOKEN out, and a token keeps ATTACH_TOKEN_FILE out", arguments: [
        (["serve", "--token-file", "/run/secrets/token"], "ATTACH_TOKEN", "--token="),
        (["serve", "--token=abc"], "ATTACH_TOKEN_FILE", "--token-file="),
        (["serve", "--sync-token-file=/s"], "ATTACH_SYNC_TOKEN", "--sync-token="),
        (["serve", "--peer-token", "p"], "ATTACH_PEER_TOKEN_FILE", "--peer-token-file="),
    ])
    func commandLineFormWins(arguments: [String], variable: String, injected: String) {
        let expanded = EnvironmentArguments(arguments, environment: [variable: "from-environment"])
        #expect(!expanded.arguments.contains { $0.hasPrefix(injected) }, "\(expanded.arguments)")
        #expect(expanded.injected.isEmpty)
    }

    @Test("without either form on the command line, the environment's is used")
    func environmentFills() {
        let expanded = EnvironmentArguments(["serve"], environment: ["ATTACH_TOKEN_FILE": "/run/secrets/token"])
        #expect(expanded.arguments == ["serve", "--token-file=/run/secrets/token"])
    }

    @Test("a catalog date needs its separators and fields in range", arguments: [
        "2026/09/21 14:13:20", "2026-13-01 00:00:00", "2026-00-10 00:00:00", "2026-09-32 00:00:00", "2026-09-21 24:00:00",
        "2026-09-21 14:60:00", "2026-09-21 14:13:61", "2026-09-21_14:13:20", "2026-09-21 14-13-20",
    ])
    func strictDates(text: String) {
        #expect(SQLDateFormat.date(from: text) == nil)
    }

    @Test("catalog dates in either separator, with or without a fraction, are read")
    func validDates() throws {
        let date = try #require(SQLDateFormat.date(from: "2026-09-21T14:13:20.5"))
        #expect(SQLDateFormat.string(from: date) == "2026-09-21 14:13:20.500")
        #expect(SQLDateFormat.date(from: "2026-09-21 14:13:20") != nil)
    }
}
