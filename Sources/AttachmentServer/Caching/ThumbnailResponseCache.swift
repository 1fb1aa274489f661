import AttachmentStore
import Foundation
import NIOCore
import Synchronization

/// Finished thumbnail answers for hash-addressed URLs (`…/thumbnail?v=<hash>&size=N`), kept in
/// memory so that a repeated request is answered without touching the catalog.
///
/// An entry is keyed by attachment, content hash and size, and is only ever made from a
/// thumbnail the store produced after reading that attachment's current hash, so it can only
/// hold the bytes that URL names. The server drops an attachment's entries when it replaces
/// or deletes it; a change made by another process (`attach rm`) is seen once the entry
/// expires (``timeToLive``). Bounded by bytes; the least recently used entries go first.
/// Thread-safe: all state sits behind one `Mutex`.
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

    private struct State {
        var entries: [Key: (entry: Entry, lastUse: UInt64)] = [:]
        var bytes = 0
        var tick: UInt64 = 0
    }

    /// The most bytes of thumbnails kept. Default 32 MiB.
    let byteLimit: Int
    /// How long an entry is served before the catalog is asked again. Default 30 s.
    let timeToLive: Duration
    private let state = Mutex(State())

    init(byteLimit: Int = 32 << 20, timeToLive: Duration = .seconds(30)) {
        self.byteLimit = byteLimit
        self.timeToLive = timeToLive
    }

    /// The live entry for `key`, if any.
    func entry(for key: Key) -> Entry? {
        let now = ContinuousClock.now
        return state.withLock { state in
            guard let found = state.entries[key] else { return nil }
            guard now - found.entry.created < timeToLive else {
                state.entries[key] = nil
                state.bytes -= found.entry.body.readableBytes
                return nil
            }
            state.tick += 1
            state.entries[key]?.lastUse = state.tick
            return found.entry
        }
    }

    /// Keeps `entry` under `key`, evicting the least recently used entries past the byte limit.
    func insert(_ entry: Entry, for key: Key) {
        let size = entry.body.readableBytes
        guard size <= byteLimit / 8 else { return }
        state.withLock { state in
            if let old = state.entries[key] { state.bytes -= old.entry.body.readableBytes }
            state.tick += 1
            state.entries[key] = (entry, state.tick)
            state.bytes += size
            while state.bytes > byteLimit, let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.entries[oldest.key] = nil
                state.bytes -= oldest.value.entry.body.readableBytes
            }
        }
    }

    /// Drops every entry of `attachment` (it was replaced or deleted).
    func removeAll(of attachment: AttachmentID) {
        state.withLock { state in
            for (key, value) in state.entries where key.attachment == attachment {
                state.entries[key] = nil
                state.bytes -= value.entry.body.readableBytes
            }
        }
    }

    /// The bytes held now.
    var byteCount: Int { state.withLock { $0.bytes } }
}
