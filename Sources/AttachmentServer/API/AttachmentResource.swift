import AttachmentStore
import Foundation
import Hummingbird

/// An attachment as the JSON API shows it, with the addresses of its bytes.
struct AttachmentResource: ResponseCodable, Equatable {
    struct Image: Codable, Equatable {
        var width: Int
        var height: Int
        var orientation: Int
    }

    /// How far the transfer of the bytes from a peer has come.
    struct FetchProgress: Codable, Equatable {
        /// Bytes received so far, counting those kept from an earlier transfer that was cut.
        var received: Int64
        /// The size of the whole blob, in bytes.
        var total: Int64
    }

    var id: String
    var noteId: String
    var position: Int
    var filename: String
    var mediaType: String
    var byteCount: Int64
    /// `sha256:<hex>`, also the ETag of the original.
    var hash: String
    var image: Image?
    var metadata: [String: String]
    /// Whether the bytes can be read here at once (``state`` is `present`).
    var available: Bool
    /// Where the bytes are: `present`, `remote`, `fetching`, `evicted` or `damaged`.
    var state: String
    var createdAt: Date
    var updatedAt: Date
    /// The metadata address.
    var url: String
    /// The original bytes; `?v=<hash>` makes the address change with the content, so it is
    /// cached as immutable.
    var originalUrl: String
    /// The thumbnail address without `size`, or `nil` when the attachment is not an image.
    var thumbnailUrl: String?
    /// What a viewer shows for an image: the original when every browser draws its type and it
    /// is at most ``DisplayImage/largestOriginal``, else the 2048 px display rendition (upright,
    /// sRGB, JPEG or WebP), so HEIC, AVIF, TIFF, 16-bit PNG and CMYK JPEG open too. `nil` when
    /// the attachment is not an image.
    var displayUrl: String?
    /// Present only while the bytes are being fetched from a peer (``available`` is false then).
    var fetch: FetchProgress?

    /// The resource of `attachment`, with `fetch` when a transfer of its bytes is under way.
    init(_ attachment: Attachment, fetch: FetchProgress? = nil) {
        id = attachment.id.rawValue
        noteId = attachment.noteID.rawValue
        position = attachment.position
        filename = attachment.filename
        mediaType = attachment.mediaType
        byteCount = attachment.byteCount
        hash = "sha256:" + attachment.blobHash.rawValue
        image = attachment.image.map { Image(width: $0.width, height: $0.height, orientation: $0.orientation) }
        metadata = attachment.metadata
        available = attachment.availability == .local
        state = attachment.fetchedBytes != nil || fetch != nil ? Attachment.State.fetching.rawValue : attachment.state.rawValue
        createdAt = attachment.createdAt
        updatedAt = attachment.updatedAt
        url = "/api/attachments/\(attachment.id.rawValue)"
        originalUrl = "/api/attachments/\(attachment.id.rawValue)/original?v=\(attachment.blobHash.rawValue)"
        thumbnailUrl = attachment.image == nil
            ? nil : "/api/attachments/\(attachment.id.rawValue)/thumbnail?v=\(attachment.blobHash.rawValue)"
        displayUrl = thumbnailUrl.map { DisplayImage.showsOriginal(attachment) ? originalUrl : $0 + "&size=\(DisplayImage.size)" }
        self.fetch = fetch
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
