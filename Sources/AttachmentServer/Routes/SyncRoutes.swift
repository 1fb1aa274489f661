import AttachmentStore
import AttachmentSync
import Foundation
import Hummingbird

/// The peer side of sync: `GET /sync/changes` (records, never bytes), `GET /sync/status`, and
/// `GET|HEAD /blobs/sha256/{hash}` (bytes by content hash, with `Range` for resumption; a
/// `HEAD` answers 200 only for bytes held here, and never fetches).
/// When the server has a token, all of them need credentials of scope ``AccessScope/syncRead``
/// (the sync token) or ``AccessScope/full``.
struct SyncRoutes {
    let dependencies: ServerDependencies

    func register(on router: some RouterMethods<AppRequestContext>) {
        router.get("sync/changes", use: changes)
        router.get("sync/status", use: status)
        router.get("blobs/sha256/:hash", use: blob)
    }

    @Sendable func changes(_ request: Request, context: AppRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let since = try Self.integer(query.get("since"), name: "since", default: 0, range: 0...Int64.max)
        let limit = try Self.integer(query.get("limit"), name: "limit", default: 500, range: 1...10_000)
        let batch = try await dependencies.store.changes(since: since, limit: Int(limit))
        return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(bytes: try batch.jsonData())))
    }

    struct Status: ResponseCodable {
        var peerID: String
        var blobBytesServed: Int64
        var blobBytesReceived: Int64
        var remoteBlobs: Int
        var peers: [PeerSyncLedger.Entry]
    }

    @Sendable func status(_ request: Request, context: AppRequestContext) async throws -> Status {
        Status(peerID: dependencies.store.peerID, blobBytesServed: dependencies.syncCounters.blobBytesServed,
               blobBytesReceived: dependencies.fetcher?.bytesReceived ?? 0,
               remoteBlobs: try await dependencies.store.remoteBlobs().count, peers: dependencies.syncLedger.snapshot)
    }

    @Sendable func blob(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let hash = BlobHash(rawValue: context.parameters.get("hash") ?? "") else {
            throw ServerError.badRequest("a blob is named by 64 lowercase hexadecimal characters", code: "bad_hash")
        }
        let file: (url: URL, byteCount: Int64)
        do {
            // A HEAD asks whether this peer holds the bytes (a peer's storage budget relies on
            // the answer): it never starts a fetch from this peer's own peers.
            if request.method == .head, try await !dependencies.store.hasBlob(hash) { throw AttachmentStore.Error.blobMissing(hash) }
            file = try await dependencies.store.blobFile(hash)
        } catch AttachmentStore.Error.blobMissing {
            throw ServerError.notFound("this peer does not have the bytes of blob \(hash)", code: "blob_not_here")
        } catch let error as SyncError {
            throw ServerError(.badGateway, code: "peers_failed", message: "this peer could not get blob \(hash) from its own peers: \(error)")
        }
        let headers: HTTPFields = [
            .cacheControl: "public, max-age=31536000, immutable",
            .contentDisposition: "attachment", .contentSecurityPolicy: "default-src 'none'; sandbox",
        ]
        let path = file.url.path(percentEncoded: false)
        return try await FileResponse.answer(
            request, tag: EntityTag.of(hash), size: file.byteCount, contentType: "application/octet-stream", headers: headers,
            body: { bytes in try await body(path: path, range: bytes, context: context) },
            sending: { dependencies.syncCounters.served($0) })
    }

    /// The bytes, throttled to the configured peer bandwidth if there is one.
    private func body(path: String, range: ClosedRange<Int64>, context: AppRequestContext) async throws -> FileResponse.Body {
        if let rate = dependencies.configuration.peerBandwidth {
            return .stream(ThrottledFileBody.make(path: path, range: range, bytesPerSecond: rate))
        }
        return try await FileResponse.fileBody(path: path, range: range, context: context, fileIO: dependencies.fileIO)
    }

    /// A query integer in `range`, or `fallback` when absent.
    static func integer(_ text: String?, name: String, default fallback: Int64, range: ClosedRange<Int64>) throws -> Int64 {
        guard let text else { return fallback }
        guard let value = Int64(text), range.contains(value) else {
            throw ServerError.badRequest("\(name) must be an integer in \(range.lowerBound)...\(range.upperBound)", code: "bad_\(name)")
        }
        return value
    }
}
