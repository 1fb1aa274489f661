@testable import AttachmentServer
import AttachmentStore
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import Testing
import TestSupport

/// The small values at the edge of the JSON API, without a server: path identifiers
/// (``Identifier``), query integers of the note, attachment and sync routes, an attachment's
/// resource (addresses, state, display image) and its JSON form, and the
/// `Content-Disposition` of originals.
@Suite("API values: identifiers, query integers, resources, dispositions")
struct APIValueUnitTests {
    /// A logger that keeps the expected error logs of these tests out of the output.
    static var quietLogger: Logger {
        var logger = Logger(label: "unit-tests")
        logger.logLevel = .critical
        return logger
    }

    static let attachmentID = AttachmentID(rawValue: "a77ac4ed-1111-4222-8333-444455556666")
    static let noteID = NoteID(rawValue: "0b7e1c7a-1111-4222-8333-444455556666")
    static let hash = BlobHash(rawValue: String(repeating: "5e", count: 32))!
    static let created = Date(timeIntervalSince1970: 1_795_000_000)

    static func attachment(
        mediaType: String = "image/jpeg", byteCount: Int64 = 1_000, image: StoredAttachment.ImageInfo? = .init(width: 40, height: 30, orientation: 6),
        state: StoredAttachment.State = .present, fetchedBytes: Int64? = nil
    ) -> StoredAttachment {
        StoredAttachment(id: attachmentID, noteID: noteID, position: 3, blobHash: hash, byteCount: byteCount, mediaType: mediaType,
                   filename: "beach.jpg", image: image, metadata: ["camera": "X100"], createdAt: created,
                   updatedAt: created.addingTimeInterval(60), state: state, fetchedBytes: fetchedBytes)
    }

    static func code<T>(_ body: () throws -> T) -> String? {
        do {
            _ = try body()
            return nil
        } catch let error as ServerError {
            return error.code
        } catch {
            return "unexpected \(error)"
        }
    }

    // MARK: - Identifiers

    @Test("a path identifier is a UUID in any case, returned lowercased", arguments: [
        ("0b7e1c7a-1111-4222-8333-444455556666", "0b7e1c7a-1111-4222-8333-444455556666"),
        ("0B7E1C7A-AAAA-4BBB-8CCC-DDDDEEEEFFFF", "0b7e1c7a-aaaa-4bbb-8ccc-ddddeeeeffff"),
        ("00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000000"),
    ])
    func validIdentifiers(text: String, parsed: String) throws {
        #expect(try Identifier.parse(text, kind: "note") == parsed)
    }

    @Test("anything else names nothing: a 404 with the kind's own code", arguments: [
        "", "0b7e1c7a", "0b7e1c7a-1111-4222-8333-44445555666", "0b7e1c7a-1111-4222-8333-4444555566667",
        "0b7e1c7a11111-4222-8333-444455556666", "0b7e1c7a-1111-4222-8333_444455556666", "0b7e1c7g-1111-4222-8333-444455556666",
        "../../../../etc/passwd-aaaa-bbbb-cccc", "0b7e1c7a-1111-4222-8333-44445555666 ", "{0b7e1c7a-1111-4222-8333-44445555}",
        "0b7e1c7a-1111-4222-8333-4444%2F556666",
    ])
    func invalidIdentifiers(text: String) {
        #expect(Self.code { try Identifier.parse(text, kind: "note") } == "note_not_found")
        #expect(Self.code { try Identifier.parse(text, kind: "attachment") } == "attachment_not_found")
    }

    @Test("a missing path parameter is a 404 too, and the message names the kind")
    func missingIdentifier() {
        do {
            _ = try Identifier.parse(nil, kind: "attachment")
            Issue.record("nil accepted")
        } catch let error as ServerError {
            #expect(error.status == .notFound)
            #expect(error.message == "no attachment ")
        } catch {
            Issue.record("\(error)")
        }
    }

    // MARK: - Query integers

    @Test("a query integer is its default when absent and its value when in range")
    func noteQueryIntegers() throws {
        #expect(try QueryInteger.parse(nil, name: "limit", default: 50, range: 1...200) == 50)
        #expect(try QueryInteger.parse("1", name: "limit", default: 50, range: 1...200) == 1)
        #expect(try QueryInteger.parse("200", name: "limit", default: 50, range: 1...200) == 200)
        #expect(try QueryInteger.parse("0", name: "offset", default: 0, range: 0...Int(Int32.max)) == 0)
        #expect(try QueryInteger.parse("2147483647", name: "offset", default: 0, range: 0...Int(Int32.max)) == Int(Int32.max))
    }

    @Test("a note or attachment query integer out of range or not a number is a 400 invalid_query naming the parameter", arguments: [
        "0", "201", "-1", "ten", "", "1.5", " 5", "5 ", "0x10", "99999999999999999999",
    ])
    func badNoteQueryIntegers(text: String) {
        do {
            _ = try QueryInteger.parse(text, name: "limit", default: 50, range: 1...200)
            Issue.record("\(text) accepted")
        } catch let error as ServerError {
            #expect(error.status == .badRequest && error.code == "invalid_query")
            #expect(error.message == "`limit` must be a whole number in 1...200")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test("a sync query integer takes all of Int64 and names its own code", arguments: [
        (nil, 0), ("0", 0), ("9223372036854775807", Int64.max), ("500", 500),
    ] as [(String?, Int64)])
    func syncQueryIntegers(text: String?, value: Int64) throws {
        #expect(try SyncRoutes.integer(text, name: "since", default: 0, range: 0...Int64.max) == value)
    }

    @Test("a bad sync query integer is a 400 bad_<name>", arguments: ["-1", "9223372036854775808", "x", "10001"])
    func badSyncQueryIntegers(text: String) {
        #expect(Self.code { try SyncRoutes.integer(text, name: "limit", default: 500, range: 1...10_000) } == "bad_limit")
    }

    // MARK: - Resources

    @Test("a stored image's resource holds its addresses, the hash as sha256:<hex>, and is available")
    func presentResource() {
        let resource = AttachmentResource(Self.attachment())
        let base = "/api/attachments/\(Self.attachmentID.rawValue)"
        #expect(resource.id == Self.attachmentID.rawValue && resource.noteID == Self.noteID)
        #expect(resource.position == 3 && resource.filename == "beach.jpg" && resource.byteCount == 1_000)
        #expect(resource.hash == "sha256:" + Self.hash.rawValue)
        #expect(resource.image == .init(width: 40, height: 30, orientation: 6))
        #expect(resource.metadata == ["camera": "X100"])
        #expect(resource.available && resource.state.rawValue == "present" && resource.fetch == nil)
        #expect(resource.url == base)
        #expect(resource.originalUrl == "\(base)/original?v=\(Self.hash.rawValue)")
        #expect(resource.thumbnailUrl == "\(base)/thumbnail?v=\(Self.hash.rawValue)")
        #expect(resource.displayUrl == resource.originalUrl)
        #expect(resource.createdAt == Self.created && resource.updatedAt == Self.created.addingTimeInterval(60))
    }

    @Test("a file that is no image has neither thumbnail nor display address")
    func fileResource() {
        let resource = AttachmentResource(Self.attachment(mediaType: "application/pdf", image: nil))
        #expect(resource.thumbnailUrl == nil && resource.displayUrl == nil && resource.image == nil)
    }

    @Test("the state is fetching while bytes are on their way, whether the record or the fetcher says so", arguments: [
        (StoredAttachment.State.remote, nil, false, "remote"),
        (.remote, nil, true, "fetching"),
        (.fetching, 10, false, "fetching"),
        (.evicted, nil, false, "evicted"),
        (.damaged, nil, false, "damaged"),
        (.present, nil, false, "present"),
    ] as [(StoredAttachment.State, Int64?, Bool, String)])
    func states(state: StoredAttachment.State, fetchedBytes: Int64?, fetching: Bool, shown: String) {
        let progress = fetching ? AttachmentResource.FetchProgress(received: 5, total: 1_000) : nil
        let resource = AttachmentResource(Self.attachment(state: state, fetchedBytes: fetchedBytes), fetch: progress)
        #expect(resource.state.rawValue == shown)
        #expect(resource.available == (state == .present))
        #expect(resource.fetch == progress)
    }

    @Test("the viewer shows originals browsers draw up to 8 MiB, and the 2048 px rendition otherwise", arguments: [
        ("image/jpeg", 8 << 20, true), ("image/jpeg", (8 << 20) + 1, false), ("image/png", 1, true), ("image/gif", 1, true),
        ("image/webp", 1, true), ("image/heic", 1, false), ("image/avif", 1, false), ("image/tiff", 1, false), ("image/JPEG", 1, false),
    ] as [(String, Int64, Bool)])
    func displayImage(mediaType: String, byteCount: Int64, original: Bool) {
        let attachment = Self.attachment(mediaType: mediaType, byteCount: byteCount)
        #expect(DisplayImage.showsOriginal(attachment) == original)
        let resource = AttachmentResource(attachment)
        #expect(resource.displayUrl == (original ? resource.originalUrl : resource.thumbnailUrl! + "&size=2048"))
    }

    @Test("a resource's JSON has sorted keys, ISO 8601 dates, unescaped slashes, and no fetch when there is none")
    func resourceJSON() throws {
        let context = AppRequestContext(source: .init(channel: NIOAsyncTestingChannel(), logger: Self.quietLogger))
        let data = Data(AttachmentResource(Self.attachment()).jsonText.bytes)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""createdAt":"2026-11-18T11:06:40Z""#))
        #expect(text.contains(#""url":"/api/attachments/\#(Self.attachmentID.rawValue)""#))
        #expect(!text.contains("\\/"))
        #expect(!text.contains("\"fetch\""))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["id", "noteId", "position", "filename", "mediaType", "byteCount", "hash", "image", "metadata",
                                     "available", "state", "createdAt", "updatedAt", "url", "originalUrl", "thumbnailUrl", "displayUrl"])
        let keys = text.matches(of: /"([a-zA-Z]+)":/).map { String($0.1) }
        let topLevel = keys.filter { object.keys.contains($0) }
        #expect(topLevel == topLevel.sorted(), "keys are sorted")
        let decoded = try context.requestDecoder.decode(AttachmentResource.self, from: data)
        #expect(decoded == AttachmentResource(Self.attachment()))
        let fetching = Data(AttachmentResource(Self.attachment(state: .remote), fetch: .init(received: 1, total: 2)).jsonText.bytes)
        #expect(String(decoding: fetching, as: UTF8.self).contains(#""fetch":{"received":1,"total":2}"#))
    }

    @Test("a note's resource has its address under /api/notes")
    func noteResource() {
        let note = Note(id: Self.noteID, title: "T", body: "B", createdAt: Self.created, updatedAt: Self.created)
        let resource = NoteResource(note)
        #expect(resource.url == "/api/notes/\(Self.noteID.rawValue)")
        #expect(resource.id == Self.noteID.rawValue && resource.title == "T" && resource.body == "B")
    }

    // MARK: - Content-Disposition

    @Test("raster images a browser only displays are inline; anything that could run or is unknown is a download", arguments: [
        ("image/jpeg", true), ("IMAGE/PNG", true), ("image/gif", true), ("image/webp", true), ("image/avif", true), ("image/bmp", true),
        ("image/svg+xml", false), ("text/html", false), ("application/pdf", false), ("application/xml", false),
        ("image/heic", false), ("application/octet-stream", false), ("", false), ("image/jpeg; charset=x", false),
    ])
    func inlineTypes(mediaType: String, inline: Bool) {
        #expect(ContentDisposition.isInline(mediaType) == inline)
        #expect(ContentDisposition.header(for: mediaType, filename: "f").hasPrefix(inline ? "inline; " : "attachment; "))
    }

    @Test("the header names the file in ASCII and, exactly, in UTF-8 percent-encoding", arguments: [
        ("beach.jpg", #"filename="beach.jpg"; filename*=UTF-8''beach.jpg"#),
        ("Ünï \"q\".jpg", #"filename="_n_ _q_.jpg"; filename*=UTF-8''%C3%9Cn%C3%AF%20%22q%22.jpg"#),
        ("a\\b;c.jpg", #"filename="a_b;c.jpg"; filename*=UTF-8''a%5Cb%3Bc.jpg"#),
        ("line\r\nSet-Cookie: x", #"filename="line__Set-Cookie: x"; filename*=UTF-8''line%0D%0ASet-Cookie%3A%20x"#),
        ("写真.jpg", #"filename="__.jpg"; filename*=UTF-8''%E5%86%99%E7%9C%9F.jpg"#),
        ("100%.jpg", #"filename="100%.jpg"; filename*=UTF-8''100%25.jpg"#),
    ])
    func dispositionHeader(filename: String, parameters: String) {
        let header = ContentDisposition.header(for: "image/jpeg", filename: filename)
        #expect(header == "inline; " + parameters)
        #expect(!header.contains("\r") && !header.contains("\n"))
    }
}
