@testable import AttachmentStore
import Foundation
import Testing
import TestSupport

/// The field checks a peer's change must pass before it is applied (``SyncChangeValidation``):
/// ids, media types, text lengths and control characters, dates, positions, sizes, image facts
/// and metadata, each at its bound; which problem is reported first; and how a hostile value
/// is quoted in the reason. Clock stamps are ``ClockStampTests``' business.
@Suite("Sync change validation")
struct SyncChangeValidationTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let validation = SyncChangeValidation(limits: PeerInputLimits(), now: now)
    static let noteID = "3f2a0c4e-1b2c-4d5e-8f90-a1b2c3d4e5f6"
    static let attachmentID = "0c4f6e0a-1b2c-4d5e-8f90-a1b2c3d4e5f6"
    static let clock = ClockStamp(rawValue: "1799999999000-000000-peer-a")
    static let date = Date(timeIntervalSince1970: 1_799_999_999)

    static func note(id: String = noteID, title: String = "Trip", body: String = "Day one", createdAt: Date = date,
                     updatedAt: Date = date, clock: ClockStamp = clock) -> SyncChange {
        .note(.init(Note(id: NoteID(rawValue: id), title: title, body: body, createdAt: createdAt, updatedAt: updatedAt), clock: clock))
    }

    static func token(position: Int = 0, byteCount: Int64 = 10, mediaType: String = "image/jpeg", filename: String = "a.jpg",
                      image: StoredAttachment.ImageInfo? = nil, metadata: [String: String] = [:],
                      motion: StoredAttachment.Motion? = nil, contentIdentifier: String? = nil) -> SyncChange {
        .attachment(.init(StoredAttachment(id: AttachmentID(rawValue: attachmentID), noteID: NoteID(rawValue: noteID), position: position,
                                           blobHash: BlobHash(rawValue: String(repeating: "a", count: 64))!, byteCount: byteCount,
                                           mediaType: mediaType, filename: filename, image: image, metadata: metadata,
                                           createdAt: date, updatedAt: date, state: .remote, motion: motion,
                                           contentIdentifier: contentIdentifier), clock: clock))
    }

    /// A Live Photo's clip as a peer might describe it.
    static func motion(byteCount: Int64 = 10, mediaType: String = "video/quicktime", filename: String = "IMG_0001.MOV",
                       durationMilliseconds: Int? = 2_500) -> StoredAttachment.Motion {
        .init(blobHash: BlobHash(rawValue: String(repeating: "b", count: 64))!, byteCount: byteCount, mediaType: mediaType,
              filename: filename, durationMilliseconds: durationMilliseconds, state: .present)
    }

    @Test("a motion photo's clip from a peer must start inside the photo's bytes, after a JPEG header")
    func embeddedVideoOffsets() {
        func problem(_ offset: Int, _ byteCount: Int64) -> String? {
            Self.validation.problem(with: Self.token(byteCount: byteCount, image: .init(width: 10, height: 10, orientation: 1, embeddedVideoOffset: offset)))
        }
        #expect(problem(200, 1000) == nil)
        #expect(problem(1000, 1000) == "embedded video offset 1000 lies outside the photo's 1000 bytes")
        #expect(problem(5, 1000) != nil)
        #expect(problem(-1, 1000) != nil)
        #expect(problem(Int.max, 1000) != nil)
    }

    @Test("a Live Photo's clip from a peer must be a video of a possible size and time under a safe name, its identifier well formed",
          arguments: [
        (motion() as StoredAttachment.Motion?, "1F6C3E2A-5B7D-4C11-9E0F-2A3B4C5D6E7F" as String?, nil as String?),
        (motion(mediaType: "text/html"), nil, "motion: media type \"text/html\" is not a video"),
        (motion(byteCount: -1), nil, "motion: byte count -1 is outside 0...\(PeerInputLimits().maxBlobBytes)"),
        (motion(filename: "IMG\u{1B}[2J.MOV"), nil, nil as String?),
        (motion(durationMilliseconds: -5), nil, "motion: video duration -5 ms is impossible"),
        (nil, "../../etc", "content identifier \"../../etc\" is malformed"),
        (nil, String(repeating: "A", count: 65), nil as String?),
    ])
    func livePhotoFields(motion: StoredAttachment.Motion?, identifier: String?, expected: String?) {
        let problem = Self.validation.problem(with: Self.token(motion: motion, contentIdentifier: identifier))
        if motion?.filename.contains("\u{1B}") == true || identifier?.count == 65 {
            #expect(problem != nil, "refused: \(problem ?? "")")
        } else {
            #expect(problem == expected)
        }
    }

    @Test("well-formed changes of every kind pass")
    func wellFormed() {
        #expect(Self.validation.problem(with: Self.note()) == nil)
        #expect(Self.validation.problem(with: Self.token(image: .init(width: 1, height: 1_000_000, orientation: 8),
                                                         metadata: ["camera": "X100", "caption": "line one\nline two"])) == nil)
        for entity in ["note", "attachment"] {
            #expect(Self.validation.problem(with: .tombstone(.init(entity: entity, id: Self.noteID, clock: Self.clock))) == nil)
        }
    }

    @Test("an id must be a canonical lowercase UUID", arguments: [
        (noteID, true), ("00000000-0000-0000-0000-000000000000", true),
        (noteID.uppercased(), false), (noteID.replacingOccurrences(of: "-", with: ""), false), ("", false),
        ("{" + String(noteID.dropFirst()), false), (String(noteID.dropLast()) + "g", false), (noteID + " ", false),
        ("3f2a0c4e11b2c-4d5e-8f90-a1b2c3d4e5f6", false), ("../../../../../../../../etc/passwd", false),
    ] as [(String, Bool)])
    func ids(text: String, valid: Bool) {
        let problem = SyncChangeValidation.id(text, "note id")
        #expect((problem == nil) == valid, "\(text)")
        if let problem { #expect(problem.hasPrefix("note id \"") && problem.hasSuffix("\" is not a lowercase UUID")) }
    }

    @Test("a media type is type/subtype of token characters, at most 127 bytes", arguments: [
        ("image/jpeg", true), ("application/vnd.ms-excel", true), ("image/svg+xml", true), ("x-a/b_c.d!#$&^", true),
        ("a/" + String(repeating: "b", count: 125), true), ("a/" + String(repeating: "b", count: 126), false),
        ("image", false), ("image/", false), ("/jpeg", false), ("image/jpeg/x", false), ("image/jpeg; charset=x", false),
        ("image/jp eg", false), ("text/html<script>", false), ("image/jpég", false), ("", false), ("image/jpeg\n", false),
    ] as [(String, Bool)])
    func mediaTypes(text: String, valid: Bool) {
        let problem = SyncChangeValidation.mediaType(text)
        #expect((problem == nil) == valid, "\(text)")
        if let problem { #expect(problem.hasSuffix("is not of the form type/subtype")) }
    }

    @Test("a title may hold tabs but no line breaks or other control characters; a body may hold line breaks", arguments: [
        ("a\tb", true, true), ("a\nb", false, true), ("a\r\nb", false, true), ("a\u{0}b", false, false), ("a\u{1B}[31mb", false, false),
        ("a\u{7F}b", false, false), ("a\u{85}b", false, true), ("émoji 😀", true, true), ("a\u{0C}b", false, false),
        ("a\u{9B}31mb", false, true), ("a\u{2028}b", false, true),
    ] as [(String, Bool, Bool)])
    func controlCharacters(text: String, titleValid: Bool, bodyValid: Bool) {
        let asTitle = Self.validation.problem(with: Self.note(title: text))
        let asBody = Self.validation.problem(with: Self.note(body: text))
        #expect((asTitle == nil) == titleValid, "title \(text.debugDescription): \(asTitle ?? "")")
        #expect((asBody == nil) == bodyValid, "body \(text.debugDescription): \(asBody ?? "")")
        if let asTitle { #expect(asTitle.hasPrefix("title contains a ") && asTitle.hasSuffix("; a title is one line of text")) }
    }

    @Test("lengths are counted in UTF-8 bytes, up to and including the limit")
    func byteLengths() {
        #expect(Self.validation.problem(with: Self.note(title: String(repeating: "a", count: RecordRules.maxTitleBytes))) == nil)
        #expect(Self.validation.problem(with: Self.note(title: String(repeating: "a", count: RecordRules.maxTitleBytes + 1)))
            == "title is 4097 bytes, more than 4096")
        // 2,048 two-byte characters fill the title exactly; one more is over.
        #expect(Self.validation.problem(with: Self.note(title: String(repeating: "é", count: 2048))) == nil)
        #expect(Self.validation.problem(with: Self.note(title: String(repeating: "é", count: 2049))) == "title is 4098 bytes, more than 4096")
        #expect(Self.validation.problem(with: Self.token(filename: String(repeating: "f", count: 255))) == nil)
        #expect(Self.validation.problem(with: Self.token(filename: String(repeating: "f", count: 256))) == "filename is 256 bytes, more than 255")
        #expect(Self.validation.problem(with: Self.note(body: String(repeating: "b", count: (1 << 20) + 1)))
            == "body is 1048577 bytes, more than 1048576")
    }

    @Test("a file name may hold no control character (C0, DEL, C1) and no bidirectional override or isolate", arguments: [
        "a\nb.jpg", "a\rb.jpg", "a\u{0}.jpg", "a\tb.jpg", "a\u{7F}.jpg", "a\u{85}.jpg", "a\u{9B}.jpg",
        "invoice\u{202E}gpj.exe", "a\u{202A}.jpg", "a\u{2066}.jpg", "a\u{2069}.jpg",
    ])
    func filenameControl(filename: String) {
        let problem = Self.validation.problem(with: Self.token(filename: filename))
        #expect(problem?.hasPrefix("filename contains a ") == true, "\(problem ?? "accepted")")
    }

    @Test("dates must lie between 1970 and now plus the allowed skew, inclusive")
    func dateBounds() {
        let latest = Self.now.addingTimeInterval(300)
        #expect(Self.validation.problem(with: Self.note(createdAt: Date(timeIntervalSince1970: 0))) == nil)
        #expect(Self.validation.problem(with: Self.note(updatedAt: latest)) == nil)
        let early = Self.validation.problem(with: Self.note(createdAt: Date(timeIntervalSince1970: -0.001)))
        #expect(early?.hasPrefix("createdAt -0.00") == true, "\(early ?? "")")
        #expect(early?.contains(" lies outside 1970 ... now + ") == true, "\(early ?? "")")
        let late = Self.validation.problem(with: Self.note(updatedAt: latest.addingTimeInterval(0.002)))
        #expect(late?.hasPrefix("updatedAt ") == true, "\(late ?? "")")
        #expect(Self.validation.problem(with: Self.note(updatedAt: .distantFuture)) != nil)
        #expect(Self.validation.problem(with: Self.note(createdAt: .distantPast)) != nil)
    }

    @Test("a position lies in 0...maxPosition and a size in 0...maxBlobBytes", arguments: [
        (0, Int64(0), true), (1_000_000, 4 << 30, true), (-1, 0, false), (1_000_001, 0, false), (0, -1, false), (0, (4 << 30) + 1, false),
    ] as [(Int, Int64, Bool)])
    func positionAndSize(position: Int, byteCount: Int64, valid: Bool) {
        let problem = Self.validation.problem(with: Self.token(position: position, byteCount: byteCount))
        #expect((problem == nil) == valid, "\(problem ?? "")")
    }

    @Test("the bounds follow the configured limits")
    func configuredLimits() {
        var limits = PeerInputLimits()
        limits.maxPosition = 3
        limits.maxBlobBytes = 100
        let strict = SyncChangeValidation(limits: limits, now: Self.now)
        #expect(strict.problem(with: Self.token(position: 4)) == "position 4 is outside 0...3")
        #expect(strict.problem(with: Self.token(byteCount: 101)) == "byte count 101 is outside 0...100")
        #expect(strict.problem(with: Self.token(position: 3, byteCount: 100)) == nil)
    }

    @Test("image facts must be 1 to a million pixels a side and an EXIF orientation 1 to 8", arguments: [
        (1, 1, 1, true), (1_000_000, 1_000_000, 8, true), (0, 10, 1, false), (10, 0, 1, false), (1_000_001, 1, 1, false),
        (10, 10, 0, false), (10, 10, 9, false), (-5, 10, 1, false),
    ])
    func imageFacts(width: Int, height: Int, orientation: Int, valid: Bool) {
        let problem = Self.validation.problem(with: Self.token(image: .init(width: width, height: height, orientation: orientation)))
        #expect((problem == nil) == valid)
        if let problem { #expect(problem == "image size \(width)×\(height) or orientation \(orientation) is impossible") }
    }

    @Test("a video's playing time from a peer must be 0 to ten years", arguments: [
        (0, true), (2_500, true), (SyncChangeValidation.longestVideoMilliseconds, true), (-1, false),
        (SyncChangeValidation.longestVideoMilliseconds + 1, false), (Int.max, false),
    ])
    func videoDuration(milliseconds: Int, valid: Bool) {
        let image = Attachment.ImageInfo(width: 1280, height: 720, orientation: 6, durationMilliseconds: milliseconds)
        let problem = Self.validation.problem(with: Self.token(image: image))
        #expect((problem == nil) == valid)
        if let problem { #expect(problem == "video duration \(milliseconds) ms is impossible") }
    }

    @Test("metadata is bounded in entries and in bytes of keys and values together")
    func metadataBounds() {
        let sixtyFour = Dictionary(uniqueKeysWithValues: (0..<64).map { ("k\($0)", "v") })
        #expect(Self.validation.problem(with: Self.token(metadata: sixtyFour)) == nil)
        var sixtyFive = sixtyFour
        sixtyFive["k64"] = "v"
        #expect(Self.validation.problem(with: Self.token(metadata: sixtyFive)) == "65 metadata entries, more than 64")
        let full = ["k": String(repeating: "v", count: (16 << 10) - 1)]
        #expect(Self.validation.problem(with: Self.token(metadata: full)) == nil)
        let over = ["kk": String(repeating: "v", count: (16 << 10) - 1)]
        #expect(Self.validation.problem(with: Self.token(metadata: over)) == "metadata is 16385 bytes, more than 16384")
    }

    @Test("a metadata key is at most 256 bytes and on one line; a value may span lines but hold no other control character")
    func metadataText() {
        #expect(Self.validation.problem(with: Self.token(metadata: [String(repeating: "k", count: 256): ""])) == nil)
        #expect(Self.validation.problem(with: Self.token(metadata: [String(repeating: "k", count: 257): ""]))
            == "a metadata key is 257 bytes, more than 256")
        #expect(Self.validation.problem(with: Self.token(metadata: ["a\nb": "v"])) == "a metadata key contains control characters")
        #expect(Self.validation.problem(with: Self.token(metadata: ["k": "line\r\nline\ttab"])) == nil)
        #expect(Self.validation.problem(with: Self.token(metadata: ["k": "bell\u{7}"])) == "metadata contains control characters")
    }

    @Test("a tombstone must be of a note or an attachment, and name it by a UUID")
    func tombstones() {
        let user = Self.validation.problem(with: .tombstone(.init(entity: "user", id: Self.noteID, clock: Self.clock)))
        #expect(user == "a tombstone of unknown kind \"user\"")
        let badID = Self.validation.problem(with: .tombstone(.init(entity: "attachment", id: "x", clock: Self.clock)))
        #expect(badID == "attachment id \"x\" is not a lowercase UUID")
        let badClock = Self.validation.problem(with: .tombstone(.init(entity: "note", id: Self.noteID, clock: ClockStamp(rawValue: "soon"))))
        #expect(badClock == "clock stamp \"soon\" is malformed")
    }

    @Test("of several problems, the first field checked is reported: ids, then text, then dates, then the clock")
    func firstProblemWins() {
        let everythingWrong = Self.note(id: "x", title: "a\u{0}", createdAt: .distantPast, clock: ClockStamp(rawValue: ""))
        #expect(Self.validation.problem(with: everythingWrong) == "note id \"x\" is not a lowercase UUID")
        let textAndDate = Self.note(title: "a\u{0}", createdAt: .distantPast)
        #expect(Self.validation.problem(with: textAndDate) == "title contains a control character (U+0000); a title is one line of text")
        let dateAndClock = Self.note(createdAt: .distantPast, clock: ClockStamp(rawValue: ""))
        #expect(Self.validation.problem(with: dateAndClock)?.hasPrefix("createdAt ") == true)
        let tokenPositionAndType = Self.token(position: -1, mediaType: "nope")
        #expect(Self.validation.problem(with: tokenPositionAndType) == "position -1 is outside 0...1000000")
    }

    @Test("a quoted value is cut to 40 characters and its control and markup characters escaped", arguments: [
        ("plain", "\"plain\""), ("<script>", "\"\\u{3c}script\\u{3e}\""), ("a\"b'c&d", "\"a\\u{22}b\\u{27}c\\u{26}d\""),
        ("line\nbreak\u{7F}", "\"line\\u{a}break\\u{7f}\""), ("", "\"\""),
        (String(repeating: "x", count: 40), "\"" + String(repeating: "x", count: 40) + "\""),
        (String(repeating: "x", count: 41), "\"" + String(repeating: "x", count: 40) + "…\""),
        (String(repeating: "é", count: 50), "\"" + String(repeating: "é", count: 40) + "…\""),
    ])
    func quoting(text: String, quoted: String) {
        #expect(PeerText.quoted(text) == quoted)
    }

    @Test("markup in an unknown tombstone kind never reaches the reason unescaped")
    func hostileKindIsEscaped() throws {
        let problem = try #require(Self.validation.problem(with: .tombstone(.init(entity: "<img src=x onerror=alert(1)>", id: Self.noteID,
                                                                                  clock: Self.clock))))
        #expect(!problem.contains("<") && !problem.contains(">"))
        #expect(problem.contains("\\u{3c}img src=x onerror=alert(1)\\u{3e}"))
    }

    @Test("a note's versions must name well-formed stamps, each under its own peer, none later than its own clock, and at most 256 peers")
    func versions() throws {
        let own = Self.clock
        let other = ClockStamp(rawValue: "1799999998000-000003-peer-b")
        let check = { (versions: VersionVector, clock: ClockStamp) in
            Self.validation.problem(with: .note(.init(Note(id: NoteID(rawValue: Self.noteID), title: "Trip", body: "", createdAt: Self.date,
                                                           updatedAt: Self.date), clock: clock, versions: versions)))
        }
        #expect(check(VersionVector([own, other]), own) == nil)
        #expect(check(VersionVector([other]), own) == nil, "a move to the trash changes the clock, not the versions")
        let later = ClockStamp(rawValue: "1799999999500-000000-peer-c")
        #expect(check(VersionVector([own, later]), own)?.contains("later than the change's own clock") == true)
        let ahead = ClockStamp(rawValue: "1900000000000-000000-peer-c")
        #expect(check(VersionVector([own, ahead]), ahead)?.contains("ahead of this machine's clock") == true)
        let decoded = try? JSONDecoder().decode(VersionVector.self, from: Data(#"{"peer-z": "1799999999000-000000-peer-a"}"#.utf8))
        #expect(check(try #require(decoded), own)?.contains("filed under another peer") == true)
        let crowd = VersionVector((0..<300).map { ClockStamp(rawValue: "1799999990000-000000-p\($0)") } + [own])
        #expect(check(crowd, own)?.contains("more than 256") == true)
    }
}
