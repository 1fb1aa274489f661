import AttachmentStore
import Foundation
import Testing

/// `SafeFilename`, the one way a stored file name becomes a path: every class of name that
/// would leave the folder or disguise the file is refused with its reason; ordinary names of
/// any script pass unchanged.
@Suite("A stored file name becomes a path only when it is one plain name")
struct SafeFilenameTests {
    static let refused: [(name: String, error: SafeFilename.Error)] = [
        ("", .empty),
        (".", .dotSegment(".")),
        ("..", .dotSegment("..")),
        ("../escape.jpg", .separator(name: "../escape.jpg")),
        ("/etc/passwd", .separator(name: "/etc/passwd")),
        ("photos/trip.jpg", .separator(name: "photos/trip.jpg")),
        ("..\\..\\boot.ini", .separator(name: "..\\..\\boot.ini")),
        ("nul\u{0}.jpg", .controlCharacter(name: "nul\u{0}.jpg", "\u{0}")),
        ("line\nbreak.jpg", .controlCharacter(name: "line\nbreak.jpg", "\n")),
        ("tab\t.jpg", .controlCharacter(name: "tab\t.jpg", "\t")),
        ("escape\u{1B}[2J.jpg", .controlCharacter(name: "escape\u{1B}[2J.jpg", "\u{1B}")),
        ("delete\u{7F}.jpg", .controlCharacter(name: "delete\u{7F}.jpg", "\u{7F}")),
        ("c1\u{85}.jpg", .controlCharacter(name: "c1\u{85}.jpg", "\u{85}")),
        ("csi\u{9B}.jpg", .controlCharacter(name: "csi\u{9B}.jpg", "\u{9B}")),
        ("separator\u{2028}.jpg", .controlCharacter(name: "separator\u{2028}.jpg", "\u{2028}")),
        ("invoice\u{202E}gpj.exe", .bidiControl(name: "invoice\u{202E}gpj.exe", "\u{202E}")),
        ("embed\u{202A}.jpg", .bidiControl(name: "embed\u{202A}.jpg", "\u{202A}")),
        ("isolate\u{2066}.jpg", .bidiControl(name: "isolate\u{2066}.jpg", "\u{2066}")),
        ("pop\u{2069}.jpg", .bidiControl(name: "pop\u{2069}.jpg", "\u{2069}")),
        ("mark\u{200E}.jpg", .bidiControl(name: "mark\u{200E}.jpg", "\u{200E}")),
        ("mark\u{200F}.jpg", .bidiControl(name: "mark\u{200F}.jpg", "\u{200F}")),
        (String(repeating: "é", count: 128), .tooLong(name: String(repeating: "é", count: 128), bytes: 256)),
    ]

    @Test("each class of unsafe name is refused with its own reason", arguments: refused.indices)
    func unsafeNameIsRefused(index: Int) {
        let (name, expected) = Self.refused[index]
        #expect(throws: expected) { try SafeFilename(name) }
    }

    @Test("names of any script, with spaces and dots inside, pass unchanged and stay in the folder",
          arguments: ["IMG_0001.JPG", "Ferien am Meer 2026.jpeg", "..hidden..jpg", ".profile", "résumé.pdf",
                      "東京タワー.heic", "Ελλάδα · θάλασσα.png", "שלום.jpg", "🐈 cat.gif", "a.b.c.tar.gz",
                      String(repeating: "a", count: 255)])
    func safeNamePasses(name: String) throws {
        let folder = URL(filePath: "/tmp/export", directoryHint: .isDirectory)
        let file = try SafeFilename(name).path(in: folder)
        #expect(file.lastPathComponent == name)
        #expect(file.deletingLastPathComponent().path(percentEncoded: false).hasPrefix("/tmp/export"))
        #expect(file.standardizedFileURL.deletingLastPathComponent().lastPathComponent == "export")
    }

    @Test("a refusal names the file with every control and bidi character escaped")
    func refusalIsQuoted() {
        let error = SafeFilename.Error.bidiControl(name: "a\u{202E}\n", "\u{202E}")
        #expect(error.description == #"the file name "a\u{202e}\u{a}" holds the bidirectional formatting character U+202E"#)
    }
}
