/// What a thumbnail is made from: a file, and how its picture is read.
struct ThumbnailSource: Sendable {
    /// How the file's picture is read.
    enum Kind: Sendable {
        /// A raster image, decoded by libvips.
        case image
        /// A video: its poster frame, decoded by ffmpeg in a limited child process.
        case video
    }

    /// The file.
    var path: String
    /// How its picture is read.
    var kind: Kind

    /// The source for an attachment of `mediaType` whose bytes are at `path`; `nil` when that
    /// type has no picture.
    init?(path: String, mediaType: String) {
        if MediaTypeSniffer.isReadableRaster(mediaType) {
            kind = .image
        } else if MediaTypeSniffer.isVideo(mediaType) {
            kind = .video
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
