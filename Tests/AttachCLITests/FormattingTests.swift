@testable import attach
import AttachmentStore
import Foundation
import Testing
import TestSupport

/// What `attach` prints and reads for people: sizes in decimal units, short ids, image
/// dimensions, padded tables, and the durations (`--grace`) and sizes (`--max-local-bytes`,
/// `--scrub-rate`) it accepts on the command line, with their edges.
@Suite("attach output formatting and value parsing")
struct FormattingTests {
    @Test("a size is shown in decimal units with one decimal below ten and none from ten", arguments: [
        (Int64(0), "0 B"), (1, "1 B"), (999, "999 B"), (1000, "1.0 kB"), (1_234_567, "1.2 MB"), (12_345_678, "12 MB"),
        (999_499, "999 kB"), (1_500_000_000, "1.5 GB"), (2_000_000_000_000, "2.0 TB"), (123_000_000_000_000, "123 TB"),
    ])
    func bytes(count: Int64, shown: String) {
        #expect(Formatting.bytes(count) == shown)
    }

    @Test("terabytes are the largest unit, however large the size")
    func largestUnit() {
        #expect(Formatting.bytes(5_000_000_000_000_000) == "5000 TB")
        #expect(Formatting.bytes(Int64.max) == "9223372 TB")
    }

    @Test("an id is shortened to its first eight characters, a shorter one kept whole", arguments: [
        ("3f2a0c4e-1b2c-4d5e-8f90-a1b2c3d4e5f6", "3f2a0c4e"), ("abc", "abc"), ("", ""), ("12345678", "12345678"),
    ])
    func shortIDs(id: String, short: String) {
        #expect(Formatting.short(id) == short)
    }

    @Test("an image attachment shows its stored width x height; anything else a dash")
    func dimensions() {
        func attachment(_ image: StoredAttachment.ImageInfo?) -> StoredAttachment {
            StoredAttachment(id: AttachmentID(rawValue: "a"), noteID: NoteID(rawValue: "n"), position: 0,
                             blobHash: BlobHash(rawValue: String(repeating: "0", count: 64))!, byteCount: 1, mediaType: "image/jpeg",
                             filename: "a.jpg", image: image, metadata: [:], createdAt: Date(), updatedAt: Date(), state: .present)
        }
        #expect(Formatting.dimensions(attachment(.init(width: 4000, height: 3000, orientation: 1))) == "4000x3000")
        #expect(Formatting.dimensions(attachment(.init(width: 4000, height: 3000, orientation: 6))) == "4000x3000", "as stored")
        #expect(Formatting.dimensions(attachment(nil)) == "-")
    }

    @Test("a table pads every column but the last to its widest cell, two spaces apart")
    func table() {
        let lines = Formatting.table([["ID", "SIZE", "FILE"], ["3f2a0c4e", "1.2 MB", "a.jpg"], ["x", "12 B", "a long name.jpg"]])
        #expect(lines == [
            "ID        SIZE    FILE",
            "3f2a0c4e  1.2 MB  a.jpg",
            "x         12 B    a long name.jpg",
        ])
        #expect(lines.allSatisfy { !$0.hasSuffix(" ") }, "no trailing spaces")
    }

    @Test("a short row ends at its own last cell, unpadded; no rows or no columns give no lines")
    func raggedTable() {
        #expect(Formatting.table([["name", "value", "note"], ["a"], ["bb", "c"]]) == ["name  value  note", "a", "bb    c"])
        #expect(Formatting.table([]).isEmpty)
        #expect(Formatting.table([[], []]).isEmpty)
        #expect(Formatting.table([["only"]]) == ["only"])
    }

    @Test("columns are as wide as their letters, not their bytes")
    func tableCountsCharacters() {
        #expect(Formatting.table([["été", "x"], ["a", "y"]]) == ["été  x", "a    y"])
    }

    @Test("a duration is whole seconds, or whole seconds, minutes, hours or days with their letter", arguments: [
        ("0", Int64(0)), ("90", 90), ("0s", 0), ("30s", 30), ("15m", 900), ("1h", 3600), ("2d", 172_800), ("36500d", 3_153_600_000),
    ])
    func durations(text: String, seconds: Int64) {
        #expect(Formatting.duration(text) == .seconds(seconds))
    }

    @Test("anything else is no duration", arguments: [
        "", "s", "h", "1w", "1y", "1.5h", "0.5", "-1", "-5m", "1H", "1 h", " 1h", "1h ", "m1", "1hm", "1h30m", "ten", "1e3",
    ])
    func notDurations(text: String) {
        #expect(Formatting.duration(text) == nil, "\(text)")
    }

    @Test("a size takes a unit of 1024s, with or without i and B, in any case", arguments: [
        ("0", Int64(0)), ("4096", 4096), ("5b", 5), ("800k", 819_200), ("800K", 819_200), ("1kb", 1024), ("1KiB", 1024),
        ("500M", 524_288_000), ("500MB", 524_288_000), ("500mib", 524_288_000), ("2G", 2_147_483_648), ("1.5GiB", 1_610_612_736),
        ("1t", 1_099_511_627_776), ("1TiB", 1_099_511_627_776), ("10 MB", 10_485_760), (" 2g ", 2_147_483_648),
        ("0.5k", 512), ("1e3", 1000),
    ])
    func sizes(text: String, bytes: Int64) throws {
        let size = try #require(ByteSize(argument: text), "\(text)")
        #expect(size.bytes == bytes)
    }

    @Test("none is a size meaning no limit, in any case")
    func noLimit() throws {
        for text in ["none", "NONE", " None "] {
            let size = try #require(ByteSize(argument: text))
            #expect(size.bytes == nil)
        }
    }

    @Test("a fraction of a byte is dropped")
    func fractionalBytes() {
        #expect(ByteSize(argument: "1.9")?.bytes == 1)
        #expect(ByteSize(argument: "1.5b")?.bytes == 1)
    }

    @Test("negative, non-numeric, unknown-unit, infinite and overlarge sizes are refused", arguments: [
        "", "M", "GiB", "-1", "-1M", "abc", "12Q", "1pb", "1 gig", "inf", "nan", "-inf", "1e30", "4194304T", "1 2M", "nonee",
    ])
    func notSizes(text: String) {
        #expect(ByteSize(argument: text) == nil, "\(text)")
    }

    @Test("the largest size accepted is just under 2^62 bytes")
    func largestSize() {
        #expect(ByteSize(argument: "4194303T")?.bytes == 4_194_303 << 40)
        #expect(ByteSize(argument: "4194304T") == nil)
    }
}
