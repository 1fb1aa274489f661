import AttachmentStore
import Foundation
import Hummingbird

/// An attachment as the JSON API shows it: the model's fields under the API's names, where its
/// bytes are, and the addresses of its bytes.
///
/// It holds the ``Attachment`` itself; the JSON keys are the API's contract (`openapi.yaml`:
/// `noteId`, `hash` as `sha256:<hex>`, `available`, the URLs) and are written here once, in
/// ``encode(to:)`` and ``init(from:)``. The addresses are derived, never stored; the model's
/// fields read through it (`resource.filename`).
@dynamicMemberLookup
struct AttachmentResource: ResponseCodable, Equatable {
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

        init(_ attachment: Attachment) {
            url = "/api/attachments/\(attachment.id.rawValue)"
            originalUrl = "\(url)/original?v=\(attachment.blobHash.rawValue)"
            thumbnailUrl = attachment.image == nil ? nil : "\(url)/thumbnail?v=\(attachment.blobHash.rawValue)"
            displayUrl = thumbnailUrl.map { [originalUrl] in DisplayImage.showsOriginal(attachment) ? originalUrl : $0 + "&size=\(DisplayImage.size)" }
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

    private enum Keys: String, CodingKey {
        case id, noteId, position, filename, mediaType, byteCount, hash, image, metadata, available, state
        case createdAt, updatedAt, url, originalUrl, thumbnailUrl, displayUrl, fetch
    }

    /// Writes the API's JSON object.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(id, forKey: .id)
        try container.encode(attachment.noteID.rawValue, forKey: .noteId)
        try container.encode(attachment.position, forKey: .position)
        try container.encode(attachment.filename, forKey: .filename)
        try container.encode(attachment.mediaType, forKey: .mediaType)
        try container.encode(attachment.byteCount, forKey: .byteCount)
        try container.encode(hash, forKey: .hash)
        try container.encodeIfPresent(attachment.image, forKey: .image)
        try container.encode(attachment.metadata, forKey: .metadata)
        try container.encode(available, forKey: .available)
        try container.encode(attachment.state, forKey: .state)
        try container.encode(attachment.createdAt, forKey: .createdAt)
        try container.encode(attachment.updatedAt, forKey: .updatedAt)
        try container.encode(url, forKey: .url)
        try container.encode(originalUrl, forKey: .originalUrl)
        try container.encodeIfPresent(thumbnailUrl, forKey: .thumbnailUrl)
        try container.encodeIfPresent(displayUrl, forKey: .displayUrl)
        try container.encodeIfPresent(fetch, forKey: .fetch)
    }

    /// Reads the API's JSON object back (the derived addresses are not read: they follow).
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let hash = try container.decode(String.self, forKey: .hash)
        guard hash.hasPrefix("sha256:"), let blobHash = BlobHash(rawValue: String(hash.dropFirst(7))) else {
            throw DecodingError.dataCorruptedError(forKey: .hash, in: container, debugDescription: "not sha256:<64 hex digits>")
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
            state: try container.decode(Attachment.State.self, forKey: .state)
        )
        self.init(attachment, fetch: try container.decodeIfPresent(FetchProgress.self, forKey: .fetch))
    }
}

/// The attachments of one note, in order: all of them, or one page with the address of the
/// next (`nil` on the last page, and when the list was not paged).
struct AttachmentList: ResponseCodable {
    var attachments: [AttachmentResource]
    var next: String?
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

/// The body of `PATCH /api/attachments/{id}`: where the attachment moves among its note's.
struct AttachmentChange: JSONObjectBody {
    var position: Int?

    enum CodingKeys: String, CodingKey, CaseIterable { case position }
}
