import CatalogSQL
import Foundation

extension AttachmentStore {
    /// Joins the two halves of a Live Photo into one attachment, when `facts` describe one half
    /// (bytes that carry a content identifier) and the other half is already in `note` outside
    /// the trash (an attachment with the same identifier and no clip yet).
    ///
    /// The arriving half's new attachment `id` becomes the pair: the still (whichever half it
    /// is) as its own bytes, type, picture facts and name, the clip as its
    /// ``Attachment/motion``. It takes the place and creation time of the attachment already
    /// there, and that one's metadata under `metadata`; the one already there is deleted with a
    /// tombstone, so every peer and open page sees one attachment replace the other. (The id a
    /// caller chose — a resumable upload's — is therefore always the attachment it gets.)
    ///
    /// Returns the pair, or `nil` (nothing changed) when there is nothing to join: no
    /// identifier, no partner, or two stills or two clips. Call inside a catalog write
    /// transaction holding the note's key, after the bytes of `facts` are installed and
    /// recorded present.
    func joinLivePhoto(_ facts: OriginalFacts, id: AttachmentID, filename: String, metadata: [String: String], note: NoteID,
                       in db: any SQLTransaction) throws -> Attachment? {
        guard let identifier = facts.contentIdentifier,
              let partner = try AttachmentRecord.livePhotoPartner(inNote: note.rawValue, contentIdentifier: identifier, in: db)
        else { return nil }
        let arrivingIsClip = MediaTypeSniffer.isVideo(facts.mediaType)
        let (stillType, clipType) = arrivingIsClip ? (partner.mediaType, facts.mediaType) : (facts.mediaType, partner.mediaType)
        guard MediaTypeSniffer.isReadableRaster(stillType), MediaTypeSniffer.isVideo(clipType) else { return nil }
        let stamp = clock.tick()
        var pair = partner
        pair.id = id.rawValue
        pair.updatedAt = Date()
        pair.clock = stamp.rawValue
        pair.metadata.merge(metadata) { _, given in given }
        if arrivingIsClip {
            pair.record(motion: Attachment.Motion(blobHash: facts.hash, byteCount: facts.byteCount, mediaType: facts.mediaType, filename: filename,
                                                  durationMilliseconds: facts.image?.durationMilliseconds, state: .present))
        } else {
            pair.record(motion: Attachment.Motion(blobHash: try partner.validatedHash, byteCount: 0, mediaType: partner.mediaType,
                                                  filename: partner.filename, durationMilliseconds: partner.image?.durationMilliseconds,
                                                  state: .present))
            pair.blobHash = facts.hash.rawValue
            pair.mediaType = facts.mediaType
            pair.image = facts.image
            pair.filename = filename
        }
        try TombstoneRecord(entity: "attachment", id: partner.id, clock: stamp.rawValue).save(db)
        try AttachmentRecord.delete(partner.id, in: db)
        try pair.insert(db)
        guard var joined = try AttachmentRow.fetch(pair.id, in: db)?.value else { throw Error.attachmentNotFound(pair.id) }
        joined.position = try AttachmentRecord.rank(of: pair, in: db)
        return joined
    }
}
