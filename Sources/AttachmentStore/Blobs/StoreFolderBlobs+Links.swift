#if canImport(Glibc)
import Glibc
#endif

extension StoreFolderBlobs {
    /// What is wrong with the way to the file of `hash`, read without following any link: the
    /// first of `blobs`, `blobs/sha256`, its two fan-out folders and the file itself that is a
    /// symbolic link (or not a folder, or the file not a regular one), as a sentence; `nil`
    /// when every part is what the store makes (a missing part is not this function's concern).
    /// A backup's blobs are read through this before a restore links or copies any, so a link
    /// planted in a backup cannot make the new store hold, or serve, a file from elsewhere. Blocks.
    func linkOnTheWay(to hash: BlobHash) -> String? {
        let file = path(for: hash)
        let relative = file.dropFirst(root.count + 1).split(separator: "/")
        var current = root
        for (index, part) in relative.enumerated() {
            current += "/" + part
            var info = stat()
            guard lstat(current, &info) == 0 else { return nil }
            let kind = info.st_mode & S_IFMT
            let isFile = index == relative.count - 1
            if kind == S_IFLNK { return "\(current) is a symbolic link; a store holds only its own folders and files" }
            if kind != (isFile ? S_IFREG : S_IFDIR) { return "\(current) is not a \(isFile ? "regular file" : "folder")" }
        }
        return nil
    }
}
