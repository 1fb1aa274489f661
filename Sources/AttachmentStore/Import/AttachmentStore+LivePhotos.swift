import CatalogSQL
import Foundation

extension AttachmentStore {
    /// Joins the two halves of a Live Photo into one attachment, when `facts` describe one half
    /// (bytes that carry a content identifier) and the other half is already in `note` outside
    /// the trash (an attachment with the same identifier and no clip yet):
    /// - a clip joining a still becomes the still's ``Attachment/motion``;
    /// - a still joining a clip takes the attachment over (its bytes, type, picture facts and
    ///   name become the still's), and the clip becomes its motion.
    ///
    /// Either way the attachment keeps its id, place and creation time, takes `metadata` over
    /// its own, and is stamped so the pair syncs as one change. Returns it, or `nil` (nothing
    /// changed) when there is nothing to join: no identifier, no partner, or two stills or two
    /// clips. Call inside a catalog write transaction holding the note's key, after the bytes of
    /// `facts` are installed and recorded present.
    func joinLivePhoto(_ facts: OriginalFacts, filename: String, metadata: [String: String], note: NoteID,
                       in db: any SQLTransaction) throws -> Attachment? {
        guard let identifier = facts.contentIdentifier,
              var record = try AttachmentRecord.livePhotoPartner(inNote: note.rawValue, contentIdentifier: identifier, in: db)
        else { return nil }
        let arrivingIsClip = MediaTypeSniffer.isVideo(facts.mediaType)
        let (stillType, clipType) = arrivingIsClip ? (record.mediaType, facts.mediaType) : (facts.mediaType, record.mediaType)
        guard MediaTypeSniffer.isReadableRaster(stillType), MediaTypeSniffer.isVideo(clipType) else { return nil }
        if arrivingIsClip {
            record.record(motion: Attachment.Motion(blobHash: facts.hash, byteCount: facts.byteCount, mediaType: facts.mediaType, filename: filename,
                                                    durationMilliseconds: facts.image?.durationMilliseconds, state: .present))
        } else {
            record.record(motion: Attachment.Motion(blobHash: try record.validatedHash, byteCount: 0, mediaType: record.mediaType,
                                                    filename: record.filename, durationMilliseconds: record.image?.durationMilliseconds,
                                                    state: .present))
            record.blobHash = facts.hash.rawValue
            record.mediaType = facts.mediaType
            record.image = facts.image
            record.filename = filename
        }
        record.metadata.merge(metadata) { _, given in given }
        record.updatedAt = Date()
        record.clock = clock.tick().rawValue
        try record.update(db)
        guard var joined = try AttachmentRow.fetch(record.id, in: db)?.value else { throw Error.attachmentNotFound(record.id) }
        joined.position = try AttachmentRecord.rank(of: record, in: db)
        return joined
    }
}
