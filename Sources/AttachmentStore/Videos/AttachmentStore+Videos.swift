import Foundation
import Imaging

extension AttachmentStore {
    /// The copy of a video attachment a browser plays: H.264 and AAC in MP4 with its index at
    /// the front, upright, at most `VideoRendition.Settings.maximumDuration` long
    /// (``VideoConfiguration/rendition``); a transcoded copy at most its `maxPixelSize` on its
    /// longest side.
    ///
    /// Made on first request (a clip that is already such a file is copied stream for stream,
    /// in about the time it takes to read it; anything else is transcoded), then kept in
    /// `cache/renditions/` until the budget or a clear removes it. The original is never
    /// changed. Requests for the same clip share one job, which is cancelled (and ffmpeg killed)
    /// when every requester has gone. A video whose bytes are on a peer is fetched first,
    /// unless its copy is already kept here.
    /// - Throws: ``Error/notAVideo(_:)`` for attachments that are not MP4 or QuickTime videos,
    ///   ``Error/notAvailableLocally(_:)`` when the bytes are on a peer that cannot be reached,
    ///   ``Error/imageUnreadable(_:cause:)`` when ffmpeg refuses the clip or runs out of its
    ///   limits, ``Error/imageTooLarge(_:cause:)`` for a clip over the pixel limit.
    ///
    /// For a Live Photo, the copy is its clip's (``Attachment/motion``); for an Android motion
    /// photo, the clip's inside its bytes (``Attachment/ImageInfo/embeddedVideoOffset``).
    public func playableVideo(for id: AttachmentID) async throws -> PlayableVideo {
        let attachment = try await attachment(id)
        let clip: (hash: BlobHash, byteCount: Int64, state: Attachment.State, offset: Int64)
        if let motion = attachment.motion {
            clip = (motion.blobHash, motion.byteCount, motion.state, 0)
        } else if MediaTypeSniffer.isVideo(attachment.mediaType) {
            clip = (attachment.blobHash, attachment.byteCount, attachment.state, 0)
        } else if let offset = attachment.image?.embeddedVideoOffset {
            clip = (attachment.blobHash, attachment.byteCount, attachment.state, Int64(offset))
        } else {
            throw Error.notAVideo(id)
        }
        if let kept = try await renditions.kept(clip.hash) { return kept }
        if clip.state != .present { try await fetchOriginal(clip.hash, byteCount: clip.byteCount, of: id) }
        let path = try await backend.localFile(for: clip.hash)
        do {
            return try await renditions.playable(clip.hash, sourcePath: path, startingAt: clip.offset)
        } catch let error as ImagingError {
            throw Self.storeError(error, for: id)
        }
    }

    /// Files and bytes of the kept playable copies of videos.
    public func playableVideoUsage() async throws -> (files: Int, bytes: Int64) {
        let renditions = self.renditions
        return try await BlockingPool.run { renditions.usage() }
    }

    /// Deletes every kept playable copy; each is made again when next asked for.
    public func clearPlayableVideos() async throws {
        let renditions = self.renditions
        do {
            try await BlockingPool.run { try renditions.removeAll() }
        } catch {
            throw Error.writeFailed(path: renditions.root, cause: .init(error, call: "remove"))
        }
    }
}
