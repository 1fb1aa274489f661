import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The partial files of peer downloads in `tmp/` and the caps they keep
/// (``PartialDownloadLimits``): which downloads of this process are under way and for which
/// peer, and which peer's cut transfer left each leftover.
///
/// ``admit(_:limits:byteCap:)`` is asked before a download opens its partial: it reads
/// `tmp/`, removes the oldest leftovers that stand in the way (through ``DeadTemporaryFile``,
/// so never one a writer holds), and registers the download — or refuses it. A live
/// download counts at its blob's full size from the start, so downloads admitted side by side
/// can never grow past a cap together.
final class PartialDownloads: Sendable {
    /// A download admitted and not yet ended.
    struct Reservation: Sendable, Equatable {
        let id: UUID
        let hash: BlobHash
        /// The peer the bytes come from (its description), when the caller named one.
        let peer: String?
        /// The blob's full size.
        let bytes: Int64
    }

    /// A partial download file found in `tmp/`.
    struct File: Sendable, Equatable {
        let hash: BlobHash
        let bytes: Int64
        let modified: Date
        /// Whether a writer holds it (a download under way, here or in another process).
        let locked: Bool
    }

    /// What ``plan(_:files:live:leftBy:limits:byteCap:)`` decided.
    enum Decision: Sendable, Equatable {
        /// Admitted once these leftovers are removed (oldest first).
        case admit(removing: [BlobHash])
        /// Refused: the partials under way already fill a cap.
        case refuse(String)
    }

    private struct State {
        var live: [UUID: Reservation] = [:]
        /// The peer whose cut transfer left the partial of a blob, for the per-peer caps.
        var leftBy: [BlobHash: String] = [:]
    }

    private let state = Mutex(State())
    private let folder: String

    /// The ledger of the partials in `folder` (the store's `tmp/`).
    init(folder: String) {
        self.folder = folder
    }

    /// Registers a download of `hash` (`bytes` in all, from `peer`) when it fits the caps,
    /// removing the oldest leftovers that stand in its way. Blocks (reads `tmp/`).
    /// - Throws: ``AttachmentStore/Error/writeFailed(path:cause:)`` naming the cap when the
    ///   partials under way already fill it.
    func admit(_ hash: BlobHash, bytes: Int64, peer: String?, limits: PartialDownloadLimits,
               byteCap: Int64) throws(AttachmentStore.Error) -> Reservation {
        let reservation = Reservation(id: UUID(), hash: hash, peer: peer, bytes: bytes)
        return try state.withLock { state throws(AttachmentStore.Error) in
            let decision = Self.plan(reservation, files: scan(), live: Array(state.live.values), leftBy: state.leftBy,
                                     limits: limits, byteCap: byteCap)
            switch decision {
            case .refuse(let reason):
                throw .writeFailed(path: folder, cause: .condition(reason))
            case .admit(let removing):
                for leftover in removing {
                    if let file = DeadTemporaryFile(path(of: leftover)) { try? file.remove() }
                    state.leftBy[leftover] = nil
                }
                state.live[reservation.id] = reservation
                return reservation
            }
        }
    }

    /// Ends the download `reservation` admitted: when it did not complete, its partial (if any
    /// is left) is remembered as left by its peer.
    func end(_ reservation: Reservation, completed: Bool) {
        state.withLock { state in
            guard state.live.removeValue(forKey: reservation.id) != nil else { return }
            state.leftBy[reservation.hash] = completed ? nil : reservation.peer
        }
    }

    /// The partial download files in `tmp/` now. Blocks.
    func scan() -> [File] {
        var files: [File] = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            guard name.hasPrefix("fetch-"), name.hasSuffix(".part"),
                  let hash = BlobHash(rawValue: String(name.dropFirst(6).dropLast(5))) else { continue }
            let path = folder + "/" + name
            let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard fd >= 0 else { continue }
            defer { Glibc.close(fd) }
            var info = stat()
            guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            // A shared lock is free exactly when no download holds the file (ours goes with the descriptor).
            let locked = flock(fd, LOCK_SH | LOCK_NB) != 0
            files.append(File(hash: hash, bytes: Int64(info.st_size), modified: BlobFileScan.modificationDate(info), locked: locked))
        }
        return files
    }

    /// Removes the oldest leftovers (dead partials) until those left take at most `limit`
    /// bytes; returns how many files and bytes went. Blocks.
    func trimLeftovers(to limit: Int64) -> (files: Int, bytes: Int64) {
        state.withLock { state in
            let liveHashes = Set(state.live.values.map(\.hash))
            var leftovers = scan().filter { !$0.locked && !liveHashes.contains($0.hash) }.sorted { $0.modified < $1.modified }
            var held = leftovers.reduce(Int64(0)) { $0 + $1.bytes }
            var removed = (files: 0, bytes: Int64(0))
            while held > limit, !leftovers.isEmpty {
                let oldest = leftovers.removeFirst()
                held -= oldest.bytes
                guard let file = DeadTemporaryFile(path(of: oldest.hash)) else { continue }
                let bytes = file.bytes
                guard (try? file.remove()) != nil else { continue }
                state.leftBy[oldest.hash] = nil
                removed.files += 1
                removed.bytes += bytes
            }
            return removed
        }
    }

    private func path(of hash: BlobHash) -> String { folder + "/" + BlobDownload.partialName(of: hash) }

    /// Whether `candidate` may start, given the partial `files` in `tmp/`, this process's `live`
    /// downloads and who left each leftover: the leftovers to remove first, or why not.
    ///
    /// Live downloads count at their full size; another process's (a locked file not in
    /// `live`) at its size so far; leftovers at theirs, except the candidate's own, which it
    /// resumes. The candidate's peer's own leftovers go first while its per-peer caps are
    /// exceeded, then anyone's, oldest first, while the overall caps are. A cap still exceeded
    /// only by downloads under way refuses the candidate, unless there are none (then it runs alone).
    static func plan(_ candidate: Reservation, files: [File], live: [Reservation], leftBy: [BlobHash: String],
                     limits: PartialDownloadLimits, byteCap: Int64) -> Decision {
        let liveHashes = Set(live.map(\.hash))
        var leftovers = files.filter { !$0.locked && !liveHashes.contains($0.hash) && $0.hash != candidate.hash }
            .sorted { $0.modified < $1.modified }
        let elsewhere = files.filter { $0.locked && !liveHashes.contains($0.hash) && $0.hash != candidate.hash }
        var removing: [BlobHash] = []

        if let peer = candidate.peer {
            let peersLive = live.filter { $0.peer == peer }
            func held() -> (bytes: Int64, files: Int) {
                let left = leftovers.filter { leftBy[$0.hash] == peer }
                return (peersLive.reduce(candidate.bytes) { $0 + $1.bytes } + left.reduce(0) { $0 + $1.bytes },
                        peersLive.count + left.count + 1)
            }
            func over() -> Bool { held().bytes > limits.maxBytesPerPeer || held().files > limits.maxFilesPerPeer }
            while over(), let index = leftovers.firstIndex(where: { leftBy[$0.hash] == peer }) {
                removing.append(leftovers.remove(at: index).hash)
            }
            if over() && !peersLive.isEmpty {
                return .refuse("\(peersLive.count) partial downloads from \(peer) are under way "
                    + "(at most \(limits.maxFilesPerPeer) files and \(limits.maxBytesPerPeer) bytes per peer)")
            }
        }

        func held() -> (bytes: Int64, files: Int) {
            let bytes = live.reduce(candidate.bytes) { $0 + $1.bytes } + elsewhere.reduce(0) { $0 + $1.bytes }
                + leftovers.reduce(0) { $0 + $1.bytes }
            return (bytes, live.count + elsewhere.count + leftovers.count + 1)
        }
        func over() -> Bool { held().bytes > byteCap || held().files > limits.maxFiles }
        while over(), !leftovers.isEmpty { removing.append(leftovers.removeFirst().hash) }
        if over() && !(live.isEmpty && elsewhere.isEmpty) {
            return .refuse("\(live.count + elsewhere.count) partial downloads are under way "
                + "(at most \(limits.maxFiles) files and \(byteCap) bytes in tmp/)")
        }
        return .admit(removing: removing)
    }
}
