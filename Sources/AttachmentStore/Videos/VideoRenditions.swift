import AsyncCoordination
import Foundation
import Imaging
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// Playable copies of videos, made on first view and kept in
/// `cache/renditions/<settings>/<ab>/<hash>.mp4`.
///
/// Derived data, safe to delete at any time (a miss makes it again). One job per original:
/// viewers of the same clip share it, and when every viewer has gone the job is cancelled and
/// ffmpeg killed. At most ``VideoConfiguration/maximumConcurrentTranscodes`` run at once, in
/// slots of their own. ffmpeg writes a temporary name in the same folder, renamed when whole,
/// so a reader only ever sees a finished copy.
final class VideoRenditions: Sendable {
    /// `<store>/cache/renditions`.
    let root: String
    /// `<root>/<settings>`.
    let directory: String
    private let configuration: VideoConfiguration
    private let limits: ImageLimits
    private let slots: AsyncGate
    private let jobs = SingleFlight<BlobHash, PlayableVideo, Never>()
    private let logger: Logger

    init(configuration: VideoConfiguration, limits: ImageLimits, cachePath: String, logger: Logger) {
        self.root = cachePath + "/renditions"
        self.directory = root + "/" + configuration.rendition.variantName
        self.configuration = configuration
        self.limits = limits
        self.slots = AsyncGate(slots: max(1, configuration.maximumConcurrentTranscodes))
        self.logger = logger
    }

    /// Where the copy of content `hash` lives.
    func path(for hash: BlobHash) -> String {
        "\(directory)/\(hash.rawValue.prefix(2))/\(hash.rawValue).mp4"
    }

    /// The playable copy of the video at `sourcePath` (content `hash`; starting `offset` bytes
    /// in, for a motion photo's clip), made now unless kept.
    /// - Throws: ``ImagingError`` when ffprobe or ffmpeg refuse the clip; `CancellationError`.
    func playable(_ hash: BlobHash, sourcePath: String, startingAt offset: Int64 = 0) async throws -> PlayableVideo {
        if let kept = try await kept(hash) { return kept }
        try Task.checkCancellation()
        let job = jobs.join(hash, waiting: true, priority: .userInitiated) { id in
            try await self.make(hash, sourcePath: sourcePath, offset: offset, jobID: id)
        }
        return try await jobs.value(of: job, for: hash)
    }

    /// The kept copy of `hash`, marked as read; `nil` when there is none.
    func kept(_ hash: BlobHash) async throws -> PlayableVideo? {
        let path = path(for: hash)
        return try await BlockingPool.run {
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0 else { return nil }
            LeastRecentlyRead.touch(path)
            return PlayableVideo(path: path, byteCount: Int64(info.st_size), originalHash: hash)
        }
    }

    /// A slot, then ffprobe and ffmpeg; the copy renamed into place when whole.
    private func make(_ hash: BlobHash, sourcePath: String, offset: Int64, jobID: UInt64) async throws -> PlayableVideo {
        if let kept = try await kept(hash) { return kept }
        try await slots.acquire(id: jobID, urgent: true)
        defer { slots.release() }
        try Task.checkCancellation()

        let (path, configuration, limits) = (path(for: hash), configuration, limits)
        let partial = path + ".part-\(UUID().uuidString.prefix(8))"
        let cancellation = RenderCancellation()
        let started = ContinuousClock.now
        do {
            try await withTaskCancellationHandler {
                try await BlockingPool.run {
                    try POSIXFile.makeDirectories(POSIXFile.parentFolder(of: path))
                    // Made from the original, which it only reads: not a read the budget counts.
                    try LeastRecentlyRead.preservingLastRead(of: sourcePath) {
                        let header = try VideoProbe.header(ofFileAt: sourcePath, startingAt: offset, tools: configuration.tools,
                                                           cancellation: cancellation.helper)
                        try VideoRendition.make(fileAt: sourcePath, startingAt: offset, header: header, into: partial, settings: configuration.rendition,
                                                limits: limits, tools: configuration.tools, cancellation: cancellation)
                    }
                    guard rename(partial, path) == 0 else { throw SystemError("rename \(partial)") }
                }
            } onCancel: {
                cancellation.cancel()
            }
        } catch {
            unlink(partial)
            if case ImagingError.cancelled = error { throw CancellationError() }
            throw error
        }
        logger.debug("playable video made", metadata: ["blob": "\(hash)", "duration": "\(ContinuousClock.now - started)"])
        guard let made = try await kept(hash) else { throw SystemError("stat \(path)") }
        return made
    }

    /// Number of kept copies and their bytes (apparent sizes).
    func usage() -> (files: Int, bytes: Int64) { FileTreeWalk.regularFiles(under: root) }

    /// Deletes every kept copy.
    func removeAll() throws {
        guard FileManager.default.fileExists(atPath: root) else { return }
        try FileManager.default.removeItem(atPath: root)
    }
}
