import AttachmentStore
import Foundation
import Hummingbird

/// An attachment as the JSON API shows it: the model's fields under the API's names, where its
/// bytes are, and the addresses of its bytes.
///
/// It holds the ``Attachment`` itself; the JSON keys are the API's contract (`openapi.yaml`:
/// `noteId`, `hash` as `sha256:<hex>`, `available`, the URLs) and are written here once, in
/// ``write(into:)`` (answers, through `JSONText`) and ``init(from:)`` (reading one back). The addresses are derived, never stored; the model's
/// fields read through it (`resource.filename`).
@dynamicMemberLookup
struct AttachmentResource: ResponseGenerator, Decodable, Equatable {
    /// How far the transfer of the bytes from a peer has come.
    struct FetchProgress: Codable, Equatable {
        /// Bytes received so far, counting those kept from an earlier transfer that was cut.
        var received: Int64
        /// The size of the whole blob, in bytes.
        var total: Int64
    }

    /// The addresses of an attachment's metadata and bytes, made once per resource.
    struct Addresses: Equatable {
        /// The metadata address.
        let url: String
        /// The original bytes; `?v=<hash>` makes the address change with the content, so it is
        /// cached as immutable.
        let originalUrl: String
        /// The thumbnail address without `size`, or `nil` when the attachment is not an image.
        let thumbnailUrl: String?
        /// What a viewer shows for an image: the original when every browser draws its type and
        /// it is at most ``DisplayImage/largestOriginal``, else the 2048 px display rendition
        /// (upright, sRGB, JPEG or WebP), so HEIC, AVIF, TIFF, 16-bit PNG and CMYK JPEG open too.
        /// `nil` when the attachment is not an image.
        let displayUrl: String?
        /// The copy of a video, or of a Live Photo's clip, a browser plays (``VideoRoute``);
        /// `nil` for anything else.
        let videoUrl: String?
        /// A Live Photo's clip as it was added (``OriginalRoute``); `nil` for anything else.
        let motionUrl: String?

        init(_ attachment: Attachment) {
            url = "/api/attachments/\(attachment.id.rawValue)"
            originalUrl = "\(url)/original?v=\(attachment.blobHash.rawValue)"
            thumbnailUrl = attachment.image == nil ? nil : "\(url)/thumbnail?v=\(attachment.blobHash.rawValue)"
            displayUrl = thumbnailUrl.map { [originalUrl] in DisplayImage.showsOriginal(attachment) ? originalUrl : $0 + "&size=\(DisplayImage.size)" }
            let clip = attachment.motion?.blobHash ?? (attachment.isVideo || attachment.hasMotion ? attachment.blobHash : nil)
            videoUrl = clip.map { [url] in "\(url)/video?v=\($0.rawValue)" }
            motionUrl = attachment.motion.map { [url] in "\(url)/motion?v=\($0.blobHash.rawValue)" }
        }
    }

    /// The attachment shown; its ``Attachment/state`` is `fetching` while ``fetch`` is set.
    let attachment: Attachment
    /// Present only while the bytes are being fetched from a peer (``available`` is false then).
    let fetch: FetchProgress?
    /// Where its metadata and bytes are served, derived from the attachment.
    let addresses: Addresses

    /// The resource of `attachment`, with `fetch` when a transfer of its bytes is under way.
    init(_ attachment: Attachment, fetch: FetchProgress? = nil) {
        var shown = attachment
        if attachment.fetchedBytes != nil || fetch != nil { shown.state = .fetching }
        self.attachment = shown
        self.fetch = fetch
        addresses = Addresses(attachment)
    }

    /// A field of the attachment shown.
    subscript<Value>(dynamicMember field: KeyPath<Attachment, Value>) -> Value { attachment[keyPath: field] }

    /// The identifier, as the API writes it.
    var id: String { attachment.id.rawValue }
    /// `sha256:<hex>`, also the ETag of the original.
    var hash: String { "sha256:" + attachment.blobHash.rawValue }
    /// Whether the bytes can be read here at once (the state is `present`).
    var available: Bool { attachment.availability == .local }
    /// The metadata address.
    var url: String { addresses.url }
    /// The original's address (``Addresses/originalUrl``).
    var originalUrl: String { addresses.originalUrl }
    /// The thumbnail's address without `size` (``Addresses/thumbnailUrl``).
    var thumbnailUrl: String? { addresses.thumbnailUrl }
    /// What a viewer shows (``Addresses/displayUrl``).
    var displayUrl: String? { addresses.displayUrl }
    /// What a viewer plays (``Addresses/videoUrl``).
    var videoUrl: String? { addresses.videoUrl }

    private enum Keys: String, CodingKey {
        case id, noteId, position, filename, mediaType, byteCount, hash, image, metadata, available, state
        case createdAt, updatedAt, url, originalUrl, thumbnailUrl, displayUrl, videoUrl, fetch, motion
    }

    /// The JSON of a Live Photo's clip: the model's ``Attachment/Motion`` under the API's names.
    private struct MotionJSON: Decodable {
        var filename: String
        var mediaType: String
        var byteCount: Int64
        var hash: String
        var durationMilliseconds: Int?
        var state: Attachment.State
    }

    /// Writes the API's JSON object, its keys in sorted order (the order `JSONEncoder` with
    /// `.sortedKeys` gives; `JSONTextTests` hold the two to one text).
    func write(into json: inout JSONText) {
        json.openObject()
        json.key("available"); json.bool(available)
        json.key("byteCount"); json.integer(attachment.byteCount)
        json.key("createdAt"); json.date(attachment.createdAt)
        if let displayUrl { json.key("displayUrl"); json.string(displayUrl) }
        if let fetch {
            json.key("fetch")
            json.openObject()
            json.key("received"); json.integer(fetch.received)
            json.key("total"); json.integer(fetch.total)
            json.closeObject()
        }
        json.key("filename"); json.string(attachment.filename)
        json.key("hash"); json.string(hash)
        json.key("id"); json.string(id)
        if let image = attachment.image {
            json.key("image")
            json.openObject()
            if let duration = image.durationMilliseconds { json.key("durationMilliseconds"); json.integer(duration) }
            if let offset = image.embeddedVideoOffset { json.key("embeddedVideoOffset"); json.integer(offset) }
            json.key("height"); json.integer(image.height)
            json.key("orientation"); json.integer(image.orientation)
            if let pages = image.pageCount { json.key("pageCount"); json.integer(pages) }
            json.key("width"); json.integer(image.width)
            json.closeObject()
        }
        json.key("mediaType"); json.string(attachment.mediaType)
        json.key("metadata")
        json.openObject()
        for (name, value) in attachment.metadata.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            json.key(name); json.string(value)
        }
        json.closeObject()
        if let motion = attachment.motion, let motionUrl = addresses.motionUrl {
            json.key("motion")
            json.openObject()
            json.key("byteCount"); json.integer(motion.byteCount)
            if let duration = motion.durationMilliseconds { json.key("durationMilliseconds"); json.integer(duration) }
            json.key("filename"); json.string(motion.filename)
            json.key("hash"); json.string("sha256:" + motion.blobHash.rawValue)
            json.key("mediaType"); json.string(motion.mediaType)
            json.key("state"); json.string(motion.state.rawValue)
            json.key("url"); json.string(motionUrl)
            json.closeObject()
        }
        json.key("noteId"); json.string(attachment.noteID.rawValue)
        json.key("originalUrl"); json.string(originalUrl)
        json.key("position"); json.integer(attachment.position)
        json.key("state"); json.string(attachment.state.rawValue)
        if let thumbnailUrl { json.key("thumbnailUrl"); json.string(thumbnailUrl) }
        json.key("updatedAt"); json.date(attachment.updatedAt)
        json.key("url"); json.string(url)
        if let videoUrl { json.key("videoUrl"); json.string(videoUrl) }
        json.closeObject()
    }

    /// The JSON object as text.
    var jsonText: JSONText {
        var json = JSONText()
        write(into: &json)
        return json
    }

    /// A 200 with the JSON object.
    func response(from request: Request, context: some RequestContext) throws -> Response {
        JSONText.response(jsonText)
    }

    /// Reads the API's JSON object back (the derived addresses are not read: they follow).
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let hash = try container.decode(String.self, forKey: .hash)
        guard hash.hasPrefix("sha256:"), let blobHash = BlobHash(rawValue: String(hash.dropFirst(7))) else {
            throw DecodingError.dataCorruptedError(forKey: .hash, in: container, debugDescription: "not sha256:<64 hex digits>")
        }
        let motion = try container.decodeIfPresent(MotionJSON.self, forKey: .motion).map { json in
            guard json.hash.hasPrefix("sha256:"), let motionHash = BlobHash(rawValue: String(json.hash.dropFirst(7))) else {
                throw DecodingError.dataCorruptedError(forKey: .motion, in: container, debugDescription: "motion hash is not sha256:<64 hex digits>")
            }
            return Attachment.Motion(blobHash: motionHash, byteCount: json.byteCount, mediaType: json.mediaType, filename: json.filename,
                                     durationMilliseconds: json.durationMilliseconds, state: json.state)
        }
        let attachment = Attachment(
            id: AttachmentID(rawValue: try container.decode(String.self, forKey: .id)),
            noteID: NoteID(rawValue: try container.decode(String.self, forKey: .noteId)),
            position: try container.decode(Int.self, forKey: .position), blobHash: blobHash,
            byteCount: try container.decode(Int64.self, forKey: .byteCount),
            mediaType: try container.decode(String.self, forKey: .mediaType),
            filename: try container.decode(String.self, forKey: .filename),
            image: try container.decodeIfPresent(Attachment.ImageInfo.self, forKey: .image),
            metadata: try container.decode([String: String].self, forKey: .metadata),
            createdAt: try container.decode(Date.self, forKey: .createdAt),
            updatedAt: try container.decode(Date.self, forKey: .updatedAt),
            state: try container.decode(Attachment.State.self, forKey: .state),
            motion: motion
        )
        self.init(attachment, fetch: try container.decodeIfPresent(FetchProgress.self, forKey: .fetch))
    }
}

/// The attachments of one note, in order: all of them, or one page with the address of the
/// next (`nil` on the last page, and when the list was not paged).
struct AttachmentList: ResponseGenerator, Decodable {
    var attachments: [AttachmentResource]
    var next: String?

    /// `{"attachments":[…],"next":…}`, `next` left out when `nil`.
    var jsonText: JSONText {
        var json = JSONText(capacity: 1024 * max(1, attachments.count))
        json.openObject()
        json.key("attachments")
        json.openArray()
        for attachment in attachments { attachment.write(into: &json) }
        json.closeArray()
        if let next { json.key("next"); json.string(next) }
        json.closeObject()
        return json
    }

    /// A 200 with the JSON object.
    func response(from request: Request, context: some RequestContext) throws -> Response {
        JSONText.response(jsonText)
    }
}

/// The one rule for what a viewer shows: the original, or the display rendition.
enum DisplayImage {
    /// The rendition's longest side, one of the thumbnail sizes.
    static let size = 2048
    /// Originals larger than this are shown through the rendition (the original is a download).
    static let largestOriginal: Int64 = 8 << 20
    /// The types every browser draws as they are.
    static let drawnByBrowsers: Set<String> = ["image/jpeg", "image/png", "image/gif", "image/webp"]

    /// Whether the viewer shows `attachment`'s original rather than its rendition: a type every
    /// browser draws (a CMYK JPEG or a 16-bit PNG included), and not larger than ``largestOriginal``.
    static func showsOriginal(_ attachment: Attachment) -> Bool {
        drawnByBrowsers.contains(attachment.mediaType) && attachment.byteCount <= largestOriginal
    }
}

/// The body of `PATCH /api/attachments/{id}`: the note the attachment moves to (`noteId`,
/// where it goes last), its place among that note's attachments (`position`), its alt text
/// (`alt`; empty removes it), or any of them together.
struct AttachmentChange: JSONObjectBody {
    var noteId: String?
    var position: Int?
    var alt: String?

    enum CodingKeys: String, CodingKey, CaseIterable { case noteId, position, alt }
}
