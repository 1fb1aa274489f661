import CatalogSQL
import Crypto
import Foundation

/// What a store does with a peer's version of a note: take it when it includes ours, ignore it
/// when ours includes it, and merge the two when each has an edit the other lacks.
///
/// A merge is a three-way merge of title and body (``TextMerge``) from the base both versions
/// were made from — the newest earlier version in the note's history that both include — and
/// includes every edit of both. Where both changed the same lines, the newer
/// version's lines stay in the note and the older version is kept whole as a **conflict copy**: a
/// note of its own, titled "… (conflict copy)", searchable and syncing like any other. Without a
/// base (this store never kept it) the newer text stays and the older one becomes the conflict
/// copy. Nothing either peer typed is dropped.
///
/// Every peer merging the same two versions writes the same note and the same copy (its id is
/// derived from the note and the older version), so peers agree without another round.
enum NoteMerge {
    /// The row that results from `incoming` meeting `local` (`nil`: keep `local` as it is). A
    /// merge also writes the conflict copy it needs.
    ///
    /// The text is decided by the versions (see ``NoteMerge``); whether the note is in the trash
    /// by the later change, whichever side wrote the text: a note edited on one device and moved
    /// to the trash later on another is in the trash with that edit, and one moved to the trash
    /// and edited later elsewhere is back with it.
    static func resolve(local: NoteRecord, incoming: NoteRecord, in db: any SQLTransaction) throws -> NoteRecord? {
        let incomingIsLater = ClockStamp(rawValue: incoming.clock) > ClockStamp(rawValue: local.clock)
        // A row from before version vectors, ours or the peer's (a peer of an older release),
        // has only its clock: the later clock wins, as before.
        if local.versions.isEmpty || incoming.versions.isEmpty { return incomingIsLater ? incoming : nil }
        var result: NoteRecord
        switch incoming.versions.relation(to: local.versions) {
        case .older:
            result = local
        case .newer:
            result = incoming
        case .same:
            // The same edits, so the same text, unless two merges of them differed (one peer kept
            // the base, another did not): the larger text then stands everywhere.
            result = (incoming.title, incoming.body) > (local.title, local.body) ? incoming : local
        case .concurrent:
            result = try merge(local, incoming, in: db)
        }
        result.trashedAt = (incomingIsLater ? incoming : local).trashedAt
        result.clock = max(ClockStamp(rawValue: local.clock), ClockStamp(rawValue: incoming.clock)).rawValue
        result.versions = local.versions.joined(with: incoming.versions)
        return result == local ? nil : result
    }

    private static func merge(_ local: NoteRecord, _ incoming: NoteRecord, in db: any SQLTransaction) throws -> NoteRecord {
        let (older, newer) = ClockStamp(rawValue: local.clock) < ClockStamp(rawValue: incoming.clock) ? (local, incoming) : (incoming, local)
        var merged = newer
        merged.updatedAt = max(local.updatedAt, incoming.updatedAt)
        let conflicted: Bool
        if let base = try NoteVersionRecord.base(ofNote: local.id, shared: local.versions.met(with: incoming.versions), in: db) {
            let title = TextMerge.merge(base: base.title, older: older.title, newer: newer.title)
            let body = TextMerge.merge(base: base.body, older: older.body, newer: newer.body)
            (merged.title, merged.body) = (title.text, body.text)
            conflicted = title.conflicted || body.conflicted
        } else {
            conflicted = older.title != newer.title || older.body != newer.body
        }
        // Within the record rules still (two bodies joined can pass a limit): else the newer text, and a copy.
        if RecordRules.problem(title: merged.title) != nil || RecordRules.problem(body: merged.body) != nil {
            (merged.title, merged.body) = (newer.title, newer.body)
            try keepConflictCopy(of: older, in: db)
        } else if conflicted {
            try keepConflictCopy(of: older, in: db)
        }
        return merged
    }

    /// Writes `older` as a note of its own, unless it is there already or was purged.
    private static func keepConflictCopy(of older: NoteRecord, in db: any SQLTransaction) throws {
        let id = conflictCopyID(of: older.id, version: older.clock)
        guard try !NoteRecord.exists(id, in: db), try !TombstoneRecord.exists(entity: "note", id: id, in: db) else { return }
        let suffix = " (conflict copy)"
        var title = older.title.isEmpty ? "Untitled" : older.title
        while title.utf8.count + suffix.utf8.count > RecordRules.maxTitleBytes { title.removeLast() }
        var copy = NoteRecord(Note(id: NoteID(rawValue: id), title: title + suffix, body: older.body,
                                   createdAt: older.updatedAt, updatedAt: older.updatedAt))
        copy.clock = older.clock
        copy.versions = VersionVector([ClockStamp(rawValue: older.clock)])
        try copy.insert(db)
    }

    /// The id of the conflict copy of version `version` of note `note`: the same on every peer, a
    /// lowercase UUID (version 8, from SHA-256).
    static func conflictCopyID(of note: String, version: String) -> String {
        var bytes = Array(SHA256.hash(data: Data("conflict copy \(note) \(version)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.joined(separator: "-")
    }
}
