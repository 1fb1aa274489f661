import Imaging

/// What a thumbnail is made from: a file, and how its picture is read.
struct ThumbnailSource: Sendable {
    /// How the file's picture is read.
    enum Kind: Sendable {
        /// A raster image, decoded by libvips.
        case image
        /// A video: its poster frame, decoded by ffmpeg in a limited child process; `header`
        /// is what ffprobe said of it at import (`nil`: probe it again).
        case video(header: VideoHeader?)
        /// A PDF: its first page, drawn by poppler's pdftoppm in a limited child process;
        /// `probed` when pdfinfo read it at import.
        case document(probed: Bool)
    }

    /// The file.
    var path: String
    /// How its picture is read.
    var kind: Kind

    /// The source for `attachment`, whose bytes are at `path`; `nil` when its type has no picture.
    init?(path: String, of attachment: Attachment) {
        if MediaTypeSniffer.isReadableRaster(attachment.mediaType) {
            kind = .image
        } else if MediaTypeSniffer.isVideo(attachment.mediaType) {
            // The recorded facts are ffprobe's own for bytes held here: a peer's claim is
            // replaced when the bytes arrive (``AttachmentStore/installDownloaded(_:)``).
            kind = .video(header: attachment.availability == .local ? attachment.image.map {
                VideoHeader(recordedWidth: $0.width, height: $0.height, orientation: $0.orientation, durationMilliseconds: $0.durationMilliseconds)
            } : nil)
        } else if MediaTypeSniffer.isDocument(attachment.mediaType) {
            kind = .document(probed: attachment.availability == .local && attachment.image?.pageCount != nil)
        } else {
            return nil
        }
        self.path = path
    }

    /// An image file.
    init(imageAt path: String) {
        self.path = path
        self.kind = .image
    }
}
