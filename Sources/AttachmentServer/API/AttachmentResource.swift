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
        self.fetch = fetch
    }
}

/// The attachments of one note, in order.
struct AttachmentList: ResponseCodable {
    var attachments: [AttachmentResource]
}
