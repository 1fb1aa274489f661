@testable import AttachmentServer
import AttachmentStore
import Testing

/// Entity tags and the two conditional headers the server reads (`If-None-Match`, `If-Range`),
/// beyond the basic cases of ``HTTPHeaderValueTests``: list syntax, whitespace, the exact
/// spelling of the weak prefix, and values that only resemble the tag. (The server reads no
/// `If-Match`: nothing it serves is written through a conditional request.)
@Suite("Entity tags")
struct EntityTagTests {
    static let hash = BlobHash(rawValue: String(repeating: "ab", count: 32))!
    static let tag = EntityTag.of(hash)
    /// The thumbnail route's form of a tag: the same hash with the size after it.
    static let thumbnailTag = "\"\(String(repeating: "ab", count: 32))-256\""

    @Test("a tag is the 64 hex digits of the hash in double quotes, the same for the same bytes, different for others")
    func tagShape() {
        #expect(Self.tag.count == 66)
        #expect(Self.tag.hasPrefix("\"") && Self.tag.hasSuffix("\""))
        #expect(Self.tag.dropFirst().dropLast() == Substring(Self.hash.rawValue))
        #expect(EntityTag.of(BlobHash(rawValue: Self.hash.rawValue)!) == Self.tag)
        #expect(EntityTag.of(BlobHash(rawValue: String(repeating: "ab", count: 31) + "ac")!) != Self.tag)
    }

    @Test("If-None-Match reads a comma-separated list: tabs and empty members are skipped and any member may match", arguments: [
        "\t\(tag)\t", ", , \(tag)", "\(tag),", "\"a\",\"b\",\(tag)", "\"a\" ,  W/\(tag) , \"b\"", "\"a\", *", " * ", "*,",
    ])
    func ifNoneMatchLists(header: String) {
        #expect(EntityTag.ifNoneMatch(header, matches: Self.tag))
    }

    @Test("If-None-Match does not match values that only resemble the tag", arguments: [
        "w/" + tag,                      // the weak prefix is case-sensitive
        "W/W/" + tag,                    // it is removed once
        "W/ " + tag,                     // nothing may stand between it and the quote
        hash.rawValue,                   // unquoted
        tag.uppercased(),                // hex digits compare exactly
        "\"" + tag + "\"",               // quoted twice
        tag + ";q=1", tag + " " + tag,   // not a list member of its own
        "\"x" + hash.rawValue + "\"",    // the hash inside another tag
        thumbnailTag,                    // the hash with a size: another representation
        ",", " , , ", "**", "*x", "\"*\"",
    ])
    func ifNoneMatchLookalikes(header: String) {
        #expect(!EntityTag.ifNoneMatch(header, matches: Self.tag), "\(header)")
    }

    @Test("* matches whatever the tag, and a list matches only the representation it names", arguments: [
        tag, thumbnailTag, "\"\"",
    ])
    func starMatchesEveryTag(tag: String) {
        #expect(EntityTag.ifNoneMatch("*", matches: tag))
        #expect(EntityTag.ifNoneMatch(Self.thumbnailTag, matches: tag) == (tag == Self.thumbnailTag))
    }

    @Test("If-Range keeps the range only for exactly this strong tag, tabs around it allowed", arguments: [
        ("\t\(tag)\t", true),
        ("", false),                     // present but empty: no condition holds
        ("\(tag), \"other\"", false),    // If-Range names one tag, not a list
        ("\(tag),", false),
        (hash.rawValue, false),
        ("w/" + tag, false),
        (tag.uppercased(), false),
        (thumbnailTag, false),
        ("\"\(hash.rawValue)", false),   // an unterminated tag
    ] as [(String, Bool)])
    func ifRange(header: String, keeps: Bool) {
        #expect(EntityTag.ifRange(header, matches: Self.tag) == keeps, "\(header)")
    }

    @Test("without an If-Range header every range is kept, whatever the tag")
    func absentIfRange() {
        for tag in [Self.tag, Self.thumbnailTag, ""] {
            #expect(EntityTag.ifRange(nil, matches: tag))
            #expect(!EntityTag.ifNoneMatch(nil, matches: tag))
        }
    }
}
