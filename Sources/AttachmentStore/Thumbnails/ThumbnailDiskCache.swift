import Foundation
import Imaging
#if canImport(Glibc)
import Glibc
#endif

/// Encoded thumbnails on disk: `cache/thumbs/v2/<settings>/<ab>/<hash>-<size>`.
///
/// Derived data, safe to delete at any time (a miss re-renders). Files are written to a
/// temporary name and renamed, without a `fsync`: each ends with a ``ThumbnailFileTrailer``
/// (type, size, length, SHA-256), so a reader serves a whole, checked thumbnail or treats
/// the file as a miss (a crash can leave a torn one) and renders again. A hit decodes
/// nothing. Every method blocks.
struct ThumbnailDiskCache: Sendable {
    /// Bumped whenever rendering or the file format changes in a way that makes older
    /// thumbnails wrong (`v2`: files end with a ``ThumbnailFileTrailer``).
    static let pipelineVersion = "v2"

    /// `<store>/cache/thumbs`.
    let root: String
    /// `<root>/<version>/<settings>`.
    let directory: String

    init(storeCachePath: String, options: ThumbnailRenderer.Options) {
        root = storeCachePath + "/thumbs"
        directory = root + "/" + Self.pipelineVersion + "/" + options.variantName
    }

    /// Where the thumbnail for `key` lives; a peer's provisional copy under
    /// `<root>/peer/<ab>/<hash>/<attachment>-<size>`, apart from this store's renders.
    func path(for key: ThumbnailKey) -> String {
        if let attachment = key.peerCopyOf {
            return "\(peerFolder(of: key.hash))/\(attachment.rawValue)-\(key.size)"
        }
        return "\(directory)/\(key.hash.rawValue.prefix(2))/\(key.hash.rawValue)-\(key.size)"
    }

    /// The folder of the peers' provisional thumbnails of content `hash`.
    func peerFolder(of hash: BlobHash) -> String {
        "\(root)/peer/\(hash.rawValue.prefix(2))/\(hash.rawValue)"
    }

    /// Removes the peers' provisional thumbnails of content `hash` (its original is here now).
    func removePeerCopies(of hash: BlobHash) {
        let folder = peerFolder(of: hash)
        guard FileManager.default.fileExists(atPath: folder) else { return }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The cached thumbnail, or `nil` when absent, torn or otherwise not what was written (it
    /// is then re-rendered, and the file replaced).
    func thumbnail(for key: ThumbnailKey) -> Thumbnail? {
        let path = path(for: key)
        guard let file = FileManager.default.contents(atPath: path),
              var thumbnail = ThumbnailFileTrailer.thumbnail(from: file) else { return nil }
        LeastRecentlyRead.touch(path)
        thumbnail.isProvisional = key.peerCopyOf != nil
        return thumbnail
    }

    /// Stores a thumbnail (one of a type without a trailer code is not stored). A failure only
    /// costs a future re-render, so it is reported to the caller to log, never to the requester.
    func store(_ thumbnail: Thumbnail, for key: ThumbnailKey) throws {
        guard let trailer = ThumbnailFileTrailer(of: thumbnail) else { return }
        let path = path(for: key)
        let folder = POSIXFile.parentFolder(of: path)
        try POSIXFile.makeDirectories(folder)
        let partial = path + ".part-\(UUID().uuidString.prefix(8))"
        let fd = open(partial, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemError("open \(partial)") }
        do {
            defer { close(fd) }
            try thumbnail.data.withUnsafeBytes { try POSIXFile.writeAll(fd, $0) }
            try trailer.bytes.withUnsafeBytes { try POSIXFile.writeAll(fd, $0) }
            guard rename(partial, path) == 0 else { throw SystemError("rename") }
        } catch {
            unlink(partial)
            throw error
        }
    }

    /// Number of cached thumbnails and their bytes (apparent sizes).
    func usage() -> (files: Int, bytes: Int64) { FileTreeWalk.regularFiles(under: root) }

    /// Deletes every cached thumbnail (all versions and settings).
    func removeAll() throws {
        guard FileManager.default.fileExists(atPath: root) else { return }
        try FileManager.default.removeItem(atPath: root)
    }
}
