import CatalogSQL

extension AttachmentStore {
    /// The most attachments waiting for a thumbnail from one peer; past it, the oldest are
    /// dropped (their thumbnails are then made from the original when it is fetched).
    package static let maxPendingPeerThumbnails = 10_000

    /// Remembers that `images` (attachment → content) came from `peer`, so that a store
    /// fetching thumbnails ahead asks that peer, and no other, for their thumbnails — also
    /// after a restart, or when the records arrived by `attach sync pull`. Kept in the
    /// catalog's settings (`peer thumbnails <peer>`), at most ``maxPendingPeerThumbnails``.
    package func addPendingPeerThumbnails(_ images: [AttachmentID: BlobHash], from peer: String) async throws {
        guard !images.isEmpty else { return }
        try await catalog.write { db in try Self.addPendingPeerThumbnails(images, from: peer, in: db) }
    }

    /// ``addPendingPeerThumbnails(_:from:)`` inside a transaction.
    static func addPendingPeerThumbnails(_ images: [AttachmentID: BlobHash], from peer: String, in db: any SQLTransaction) throws {
        guard !images.isEmpty else { return }
        // The list's lines are kept as they are, not read as ids and hashes: a peer's first
        // sync adds to it a page at a time, up to ten thousand lines long. They are checked
        // where they are used (`pendingPeerThumbnails(from:)`).
        let replaced = Set(images.keys.map(\.rawValue))
        var lines = try StoreSetting.value(pendingKey(peer), in: db).map { text in
            text.split(separator: "\n").filter { line in !replaced.contains(String(line.prefix { $0 != " " })) }
        } ?? []
        lines += images.sorted { $0.key.rawValue < $1.key.rawValue }.map { Substring("\($0.key.rawValue) \($0.value.rawValue)") }
        try StoreSetting.set(pendingKey(peer), lines.suffix(maxPendingPeerThumbnails).joined(separator: "\n"), in: db)
    }

    /// The attachments waiting for a thumbnail from `peer`, oldest first, with the content
    /// that peer's record named.
    package func pendingPeerThumbnails(from peer: String) async throws -> [(id: AttachmentID, hash: BlobHash)] {
        try await catalog.read { db in try Self.pendingPeerThumbnails(from: peer, in: db) }
    }

    /// Forgets `done` from `peer`'s waiting list (fetched, refused, or no longer wanted).
    package func removePendingPeerThumbnails(_ done: Set<AttachmentID>, from peer: String) async throws {
        guard !done.isEmpty else { return }
        try await catalog.write { db in
            let left = try Self.pendingPeerThumbnails(from: peer, in: db).filter { !done.contains($0.id) }
            try Self.setPendingPeerThumbnails(left[...], from: peer, in: db)
        }
    }

    private static func pendingKey(_ peer: String) -> String { "peer thumbnails " + peer }

    private static func pendingPeerThumbnails(from peer: String, in db: any SQLTransaction) throws -> [(id: AttachmentID, hash: BlobHash)] {
        guard let text = try StoreSetting.value(pendingKey(peer), in: db) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ")
            guard parts.count == 2, let hash = BlobHash(rawValue: String(parts[1])) else { return nil }
            return (AttachmentID(rawValue: String(parts[0])), hash)
        }
    }

    private static func setPendingPeerThumbnails(_ pending: ArraySlice<(id: AttachmentID, hash: BlobHash)>, from peer: String,
                                                 in db: any SQLTransaction) throws {
        if pending.isEmpty {
            try StoreSetting.remove(pendingKey(peer), in: db)
        } else {
            try StoreSetting.set(pendingKey(peer), pending.map { "\($0.id.rawValue) \($0.hash.rawValue)" }.joined(separator: "\n"), in: db)
        }
    }
}
