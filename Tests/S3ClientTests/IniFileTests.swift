import Foundation
@testable import S3Client
import Testing
import TestSupport

/// The parser of `~/.aws/credentials` and `~/.aws/config`, on text and on files.
@Suite("S3 credentials: the shared-file INI parser")
struct IniFileTests {
    /// The reason `text` is refused with, `nil` when it parses.
    static func refusal(_ text: String) -> String? {
        do {
            _ = try IniFile.parse(text, path: "/home/u/.aws/credentials")
            return nil
        } catch {
            guard case .credentialsUnavailable(let source, let reason) = error else { return "\(error)" }
            #expect(source == "/home/u/.aws/credentials")
            return reason
        }
    }

    @Test("comments with # and ;, blank and whitespace-only lines are skipped")
    func commentsAndBlankLines() throws {
        let text = "# a comment\n; another\n\n   \n[default]\n  # indented comment\naws_access_key_id = AKIA\n\n; trailing\n"
        let file = try IniFile.parse(text, path: "credentials")
        #expect(file.sections == ["default": ["aws_access_key_id": "AKIA"]])
    }

    @Test("whitespace around = and around the value is trimmed; a value keeps every = after the first")
    func whitespaceAndEqualsInValues() throws {
        let text = "[default]\nregion=eu-west-1\nkey\t =\t spaced value  \nsecret = abc==def=\nempty =\n"
        let section = try #require(try IniFile.parse(text, path: "c").sections["default"])
        #expect(section["region"] == "eu-west-1")
        #expect(section["key"] == "spaced value")
        #expect(section["secret"] == "abc==def=")
        #expect(section["empty"] == "")
    }

    @Test("keys are lower-cased, values and section names keep their case")
    func keysLowerCased() throws {
        let file = try IniFile.parse("[Profile Work]\nAWS_Access_Key_ID = AKIAMixedCase\n", path: "c")
        #expect(file.sections == ["Profile Work": ["aws_access_key_id": "AKIAMixedCase"]])
    }

    @Test("a section named twice is one section holding the keys of both, the later value winning")
    func duplicateSectionsMerge() throws {
        let text = "[default]\na = 1\nb = 2\n[other]\nc = 3\n[default]\nb = 20\nd = 4\n"
        let file = try IniFile.parse(text, path: "c")
        #expect(file.sections["default"] == ["a": "1", "b": "20", "d": "4"])
        #expect(file.sections["other"] == ["c": "3"])
    }

    @Test("spaces inside a section header are collapsed, so [ profile   work ] is profile work")
    func sectionNameSpacing() throws {
        let file = try IniFile.parse("[ profile   work ]\nregion = us-east-1\n[empty]\n", path: "c")
        #expect(file.sections == ["profile work": ["region": "us-east-1"], "empty": [:]])
    }

    @Test("indented continuation lines (nested s3 settings) are ignored, even without =")
    func indentedLinesIgnored() throws {
        let text = "[profile p]\ns3 =\n  max_concurrent_requests = 20\n\tnot a setting at all\nregion = us-west-2\n"
        let file = try IniFile.parse(text, path: "c")
        #expect(file.sections["profile p"] == ["s3": "", "region": "us-west-2"])
    }

    @Test("CRLF line endings parse like LF")
    func crlfLineEndings() throws {
        let file = try IniFile.parse("[default]\r\naws_access_key_id = AKIA\r\nregion = eu\r\n", path: "c")
        #expect(file.sections["default"] == ["aws_access_key_id": "AKIA", "region": "eu"])
    }

    @Test("empty text, or only comments, is a file with no sections")
    func emptyText() throws {
        #expect(try IniFile.parse("", path: "c").sections.isEmpty)
        #expect(try IniFile.parse("# nothing\n; here\n\n", path: "c").sections.isEmpty)
    }

    @Test("a setting before any section is refused with its line number")
    func settingBeforeSection() {
        #expect(Self.refusal("# header comment\n\nregion = eu\n[default]\n") == "line 3: a setting before any [section]")
    }

    @Test("a line that is neither a header, a setting nor a comment is refused with its line number")
    func lineWithoutEquals() {
        #expect(Self.refusal("[default]\naws_access_key_id AKIA\n") == "line 2 is neither [section] nor key = value")
        #expect(Self.refusal("just words") == "line 1 is neither [section] nor key = value")
    }

    @Test("an unterminated section header is refused with its line number")
    func unterminatedSection() {
        #expect(Self.refusal("[default]\na = 1\n[profile work\nb = 2\n") == "line 3: a section header without its ]")
        #expect(Self.refusal("[") == "line 1: a section header without its ]")
    }

    @Test("reading a missing file is nil; an existing file is parsed; an oversized one is refused")
    func readFromDisk() throws {
        let directory = try TemporaryDirectory("ini-file")
        let path = directory.path + "/credentials"
        #expect(try IniFile.read(path) == nil)
        try Data("[default]\nregion = eu\n".utf8).write(to: URL(filePath: path))
        #expect(try IniFile.read(path) == IniFile(sections: ["default": ["region": "eu"]]))
        try Data(count: IniFile.maxSize + 1).write(to: URL(filePath: path))
        #expect(throws: S3ClientError.credentialsUnavailable(source: path, reason: "the file is larger than \(IniFile.maxSize) bytes")) {
            try IniFile.read(path)
        }
    }

    @Test("a value with no key is refused with its line number")
    func emptyKeyRefused() {
        #expect {
            _ = try IniFile.parse("[d]\n= v\n", path: "p")
        } throws: { error in
            guard case S3ClientError.credentialsUnavailable(_, let reason) = error else { return false }
            return reason.contains("line 2")
        }
    }
}
