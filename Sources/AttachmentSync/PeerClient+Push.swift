import AsyncHTTPClient
import AttachmentStore
import Foundation
import NIOCore
import NIOHTTP1
import _NIOFileSystem

/// The pushing half of the sync protocol: a store that cannot be fetched from sends its
/// changes and the bytes of its originals to the peer.
///
/// `POST /sync/changes` takes a ``SyncBatch`` and answers what applying it did and which
/// originals the peer lacks; `HEAD /sync/blobs/HASH` answers how many bytes of one it holds
/// (`Upload-Offset`) and `PATCH /sync/blobs/HASH` continues after them.
extension PeerClient {
    /// What the peer answered a push with.
    struct PushAnswer: Sendable, Decodable {
        /// What applying the batch did there.
        var applied: SyncApplyReport
        /// The originals the batch names whose bytes the peer lacks.
        var wanted: [String]
    }

    /// Pushes `data`, a batch's wire form.
    /// - Throws: ``SyncError``; `badResponse` when the answer is not a push answer.
    func push(_ data: Data) async throws -> PushAnswer {
        let response = try await execute(path: "/sync/changes", method: .POST, headers: ["Content-Type": "application/json"],
                                         body: .bytes(ByteBuffer(data: data)))
        let body = try await collect(response, limit: 1 << 20)
        do {
            return try JSONDecoder().decode(PushAnswer.self, from: body)
        } catch {
            throw SyncError.badResponse(peer: peer.description, reason: "its answer to a push is not valid JSON (\(error))")
        }
    }

    /// How many bytes of `hash` the peer holds: all of them once it has the original.
    /// - Throws: ``SyncError``; `badResponse` when the answer lacks a sane `Upload-Offset`.
    func pushedOffset(of hash: BlobHash, byteCount: Int64) async throws -> Int64 {
        let response = try await execute(path: "/sync/blobs/\(hash.rawValue)", method: .HEAD)
        guard let offset = response.headers.first(name: "Upload-Offset").flatMap(Int64.init), (0...byteCount).contains(offset),
              response.headers.first(name: "Upload-Length") == String(byteCount) else {
            throw SyncError.badResponse(peer: peer.description,
                                        reason: "it did not say how many of the \(byteCount) bytes of blob \(hash) it holds")
        }
        return offset
    }

    /// Sends the bytes of `hash` in the file at `path` after the `offset` the peer holds,
    /// streamed from the disk a chunk at a time.
    /// - Returns: the bytes the peer holds afterwards (its `Upload-Offset`).
    /// - Throws: ``SyncError``; the file's read errors.
    func pushBytes(of hash: BlobHash, file path: String, from offset: Int64, byteCount: Int64) async throws -> Int64 {
        let headers: HTTPHeaders = ["Content-Type": "application/offset+octet-stream", "Upload-Offset": String(offset)]
        let response = try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(path)) { file in
            let chunks = file.readChunks(in: offset..<byteCount, chunkLength: .mebibytes(1))
            return try await execute(path: "/sync/blobs/\(hash.rawValue)", method: .PATCH, headers: headers,
                                     body: .stream(chunks, length: .known(byteCount - offset)),
                                     timeout: timeout + .seconds(byteCount / (256 << 10)))
        }
        guard let held = response.headers.first(name: "Upload-Offset").flatMap(Int64.init) else {
            throw SyncError.badResponse(peer: peer.description, reason: "it did not say how many bytes of blob \(hash) it holds")
        }
        return held
    }
}
