import AttachmentStore
import Foundation
import NIOCore

/// Finished thumbnail answers for hash-addressed URLs (`…/thumbnail?v=<hash>&size=N`), kept in
/// memory so that a repeated request is answered without touching the catalog.
///
/// An entry is keyed by attachment, content hash and size, and is only ever made from a
/// thumbnail the store produced after reading that attachment's current hash, so it can only
/// hold the bytes that URL names. The server drops an attachment's entries when it replaces
/// or deletes it; a change made by another process (`attach rm`) is seen once the entry
/// expires (``timeToLive``). Bounded by bytes in the package's one LRU (`MemoryCache`); the
/// least recently used entries go first.
final class ThumbnailResponseCache: Sendable {
    /// What identifies one cached answer.
    struct Key: Hashable, Sendable {
        let attachment: AttachmentID
        let hash: String
        let size: Int
    }

    /// One cached answer.
    struct Entry: Sendable {
        let body: ByteBuffer
        let mediaType: String
        let created: ContinuousClock.Instant
    }

    /// The most bytes of thumbnails kept. Default 32 MiB.
    var byteLimit: Int { entries.byteLimit }
    /// How long an entry is served before the catalog is asked again. Default 30 s.
    let timeToLive: Duration
    private let entries: MemoryCache<Key, Entry>

    init(byteLimit: Int = 32 << 20, timeToLive: Duration = .seconds(30)) {
        self.entries = MemoryCache(byteLimit: byteLimit)
        self.timeToLive = timeToLive
    }

    /// The live entry for `key`, if any.
    func entry(for key: Key) -> Entry? {
        guard let found = entries.value(forKey: key) else { return nil }
        guard ContinuousClock.now - found.created < timeToLive else {
            entries.removeValue(forKey: key)
            return nil
        }
        return found
    }

    /// Keeps `entry` under `key`, evicting the least recently used entries past the byte limit.
    /// An answer larger than an eighth of the limit is not kept.
    func insert(_ entry: Entry, for key: Key) {
        let size = entry.body.readableBytes
        guard size <= byteLimit / 8 else { return }
        entries.setValue(entry, forKey: key, cost: size)
    }

    /// Drops every entry of `attachment` (it was replaced or deleted).
    func removeAll(of attachment: AttachmentID) {
        entries.removeAll { $0.attachment == attachment }
    }

    /// The bytes held now.
    var byteCount: Int { entries.usage.cost }
}
