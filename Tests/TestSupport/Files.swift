import Crypto
import Foundation

/// Small file facts tests compare.
public enum Files {
    /// The SHA-256 of `data`, in lowercase hex.
    public static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    /// SHA-256 of a file's bytes as lowercase hex, read in chunks.
    public static func sha256(_ url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// Flips every bit of the byte in the middle of a file the store keeps read-only, as a
    /// failing disk would, and makes it read-only again.
    public static func flipByte(in path: String) throws {
        chmod(path, 0o600)
        let handle = try FileHandle(forUpdating: URL(filePath: path))
        defer { try? handle.close() }
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2)
        let byte = try handle.read(upToCount: 1)?.first ?? 0
        try handle.seek(toOffset: size / 2)
        try handle.write(contentsOf: [byte ^ 0xFF])
        chmod(path, 0o400)
    }

    /// Where a store in `store` keeps the original of `hash` (files placement).
    public static func blobPath(in store: URL, hash: String) -> String {
        store.appending(path: "blobs/sha256/\(hash.prefix(2))/\(hash.dropFirst(2).prefix(2))/\(hash)").path(percentEncoded: false)
    }

    /// Whether two files hold identical bytes.
    public static func identical(_ first: URL, _ second: URL) throws -> Bool {
        try sha256(first) == sha256(second)
    }

    /// Every regular file below `directory`, as paths relative to it, sorted.
    public static func tree(_ directory: URL) -> [String] {
        let root = directory.path(percentEncoded: false)
        guard let enumerator = FileManager.default.enumerator(atPath: root) else { return [] }
        var files: [String] = []
        while let relative = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory), !isDirectory.boolValue {
                files.append(relative)
            }
        }
        return files.sorted()
    }

    /// The size of the file at `url`, in bytes.
    public static func size(_ url: URL) throws -> Int64 {
        (try FileManager.default.attributesOfItem(atPath: url.path(percentEncoded: false))[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// The device (file system) the file or folder at `url` is on.
    public static func device(_ url: URL) throws -> UInt64 {
        (try FileManager.default.attributesOfItem(atPath: url.path(percentEncoded: false))[.systemNumber] as? NSNumber)?.uint64Value ?? 0
    }

    /// Removes `url` and everything below it, read-only files included (a store's originals are
    /// `0400`).
    /// - Throws: what `FileManager` throws when something cannot be removed.
    public static func removeTree(_ url: URL) throws {
        let root = url.path(percentEncoded: false)
        if let enumerator = FileManager.default.enumerator(atPath: root) {
            while let relative = enumerator.nextObject() as? String { chmod(root + "/" + relative, 0o700) }
        }
        try FileManager.default.removeItem(at: url)
    }
}
