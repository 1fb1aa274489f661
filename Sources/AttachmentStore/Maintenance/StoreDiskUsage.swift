#if canImport(Glibc)
import Glibc
#endif

/// What a store folder occupies on disk, by part, from one walk of the folder
/// (``FileTreeWalk``): allocated blocks as `du` counts them, and the thumbnail cache's files
/// by their apparent sizes (what `attach cache stats` has always reported). Blocks.
struct StoreDiskUsage: Equatable {
    /// The whole folder.
    var total: Int64 = 0
    /// `blobs/`: the originals kept as files.
    var originals: Int64 = 0
    /// The catalog file with its `-wal` and `-shm`.
    var catalog: Int64 = 0
    /// Files in `cache/thumbs/`, and their bytes.
    var thumbnailFiles = 0
    var thumbnailBytes: Int64 = 0
    /// Files in `cache/renditions/` (playable copies of videos), and their bytes.
    var playableVideoFiles = 0
    var playableVideoBytes: Int64 = 0
    /// `cache/blobs/`: local copies of originals kept elsewhere.
    var originalCopies: Int64 = 0
    /// `quarantine/`: damaged originals set aside.
    var quarantine: Int64 = 0

    /// The parts of the store folder `layout` names.
    init(of layout: StoreLayout) {
        FileTreeWalk.visit(layout.root) { relative, info in
            let bytes = FileTreeWalk.allocatedBytes(info)
            total += bytes
            if Self.isInside(relative, "blobs") {
                originals += bytes
            } else if ["catalog.sqlite", "catalog.sqlite-wal", "catalog.sqlite-shm"].contains(relative) {
                catalog += bytes
            } else if Self.isInside(relative, "cache/thumbs") {
                if (info.st_mode & S_IFMT) == S_IFREG {
                    thumbnailFiles += 1
                    thumbnailBytes += Int64(info.st_size)
                }
            } else if Self.isInside(relative, "cache/renditions") {
                if (info.st_mode & S_IFMT) == S_IFREG {
                    playableVideoFiles += 1
                    playableVideoBytes += Int64(info.st_size)
                }
            } else if Self.isInside(relative, "cache/blobs") {
                originalCopies += bytes
            } else if Self.isInside(relative, "quarantine") {
                quarantine += bytes
            }
        }
    }

    /// Whether `relative` is the folder `folder` or lies below it.
    private static func isInside(_ relative: String, _ folder: String) -> Bool {
        relative == folder || (relative.hasPrefix(folder) && relative.utf8.dropFirst(folder.utf8.count).first == UInt8(ascii: "/"))
    }
}
