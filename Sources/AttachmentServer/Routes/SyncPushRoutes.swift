import AttachmentStore
import Foundation
import Hummingbird

/// The pushing side of sync, for peers this server cannot reach (a laptop or phone behind NAT,
/// a store without a server): they open the connection and send what they have.
///
/// - `POST /sync/changes` takes a batch in the form `GET /sync/changes` answers, at most
///   ``maxBatchBytes`` and ``maxBatchChanges`` changes, and applies it exactly as a pulled batch
///   is applied: every change is checked against the store's peer limits, and one that fails is
///   refused, counted and skipped. It answers `{"applied": SyncApplyReport, "wanted": [hash]}`,
///   `wanted` naming the originals the batch's attachments refer to (a Live Photo's clip
///   included) whose bytes are not here.
/// - `HEAD /sync/blobs/{hash}` answers `Upload-Offset` (the bytes held: all of them once here)
///   and `Upload-Length`, for an original a record here names (404 `blob_not_wanted` otherwise).
/// - `PATCH /sync/blobs/{hash}` with `Upload-Offset` and an `application/offset+octet-stream`
///   body continues after the bytes held; once the last byte arrives the original is installed
///   if it hashes to its name (422 `hash_mismatch` otherwise, and the bytes are dropped).
///
/// When the server has a token, these need the push scope (`--push-token`) or the full one.
struct SyncPushRoutes {
    let dependencies: ServerDependencies

    /// The largest pushed batch, in bytes: the size a pulling round reads at most.
    static let maxBatchBytes = 16 << 20
    /// The most changes one pushed batch may hold, as for a pulled one (`limit` ≤ 10,000).
    static let maxBatchChanges = 10_000

    func register(on router: some RouterMethods<AppRequestContext>) {
        router.post("sync/changes", use: push)
        router.head("sync/blobs/:hash", use: blobStatus)
        router.patch("sync/blobs/:hash", use: blobBytes)
    }

    /// What a push is answered with.
    struct PushAnswer: ResponseEncodable {
        /// What applying the batch did, as for a pulled batch.
        var applied: SyncApplyReport
        /// The originals the batch names whose bytes this server lacks: send them with `PATCH /sync/blobs/{hash}`.
        var wanted: [String]
    }

    @Sendable func push(_ request: Request, context: AppRequestContext) async throws -> PushAnswer {
        guard request.headers[.contentType].map({ HeaderParameters($0).value }) == "application/json" else {
            throw ServerError.unsupportedMediaType("send the batch as application/json")
        }
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: Self.maxBatchBytes)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw ServerError(.contentTooLarge, code: "batch_too_large",
                              message: "a pushed batch may be at most \(Self.maxBatchBytes) bytes; push fewer changes at a time")
        }
        let batch: SyncBatch
        do {
            batch = try SyncBatch(jsonData: Data(buffer: body))
        } catch {
            throw ServerError.badRequest("the body is not a change batch: \(PeerText.escaped(String(describing: error), limit: 300, markup: false))",
                                         code: "invalid_batch")
        }
        guard SyncChangeValidation.isPeerID(batch.peerID) else {
            throw ServerError.badRequest("peerID must be 1 to 64 letters, digits or '-'", code: "invalid_batch")
        }
        guard batch.nextSequence >= 0 else {
            throw ServerError.badRequest("nextSequence must be 0 or more", code: "invalid_batch")
        }
        guard batch.peerID != dependencies.store.peerID else {
            // Not malformed: it names this very store, so it pushes to itself (two names of one server).
            throw ServerError(.conflict, code: "own_batch", message: "this batch comes from this server itself: a store does not push to itself")
        }
        guard batch.changes.count + batch.unreadable.count <= Self.maxBatchChanges else {
            throw ServerError.badRequest("a pushed batch may hold at most \(Self.maxBatchChanges) changes; push fewer at a time",
                                         code: "too_many_changes")
        }
        let store = dependencies.store
        let applied = try await store.apply(batch)
        let pusher = "push from \(batch.peerID)"
        dependencies.syncLedger.record(batch: applied, changes: batch.changes.count + batch.unreadable.count, peer: pusher)
        dependencies.syncLedger.recordCompletedRound(peer: pusher)
        if applied.invalid > 0 {
            dependencies.configuration.logger.warning("a pushing peer sent invalid changes; they were skipped", metadata: [
                "peer": "\(batch.peerID)", "invalid": "\(applied.invalid)", "reasons": "\(applied.problems.joined(separator: "; "))",
            ])
        }
        // Only bytes a record here names are wanted: a refused change created none.
        let named = batch.changes.flatMap { change -> [BlobHash] in
            guard case .attachment(let token) = change else { return [] }
            return [token.attachment.blobHash] + (token.attachment.motion.map { [$0.blobHash] } ?? [])  // a Live Photo's clip too
        }
        let wanted = try await store.blobsLacking(among: named)
        return PushAnswer(applied: applied, wanted: wanted.map(\.rawValue))
    }

    @Sendable func blobStatus(_ request: Request, context: AppRequestContext) async throws -> Response {
        let status = try await dependencies.store.pushedBlobStatus(try context.blobHash())
        return Response(status: .ok, headers: [
            TusProtocol.uploadOffset: String(status.offset), TusProtocol.uploadLength: String(status.byteCount), .cacheControl: "no-store",
        ])
    }

    @Sendable func blobBytes(_ request: Request, context: AppRequestContext) async throws -> Response {
        let hash = try context.blobHash()
        let store = dependencies.store
        let status = try await store.pushedBlobStatus(hash)  // 404 before anything is read
        let offset = try TusProtocol.patchOffset(of: request)
        guard offset == status.offset, !status.isComplete else {
            throw ServerError(PushedBlobError.offsetMismatch(expected: status.offset, given: offset))
        }
        if let announced = request.headers[.contentLength].flatMap(Int64.init), announced > status.byteCount - offset {
            throw ServerError(PushedBlobError.exceedsSize(hash, byteCount: status.byteCount))
        }
        let receiver = UploadReceiver(dependencies: dependencies)
        let slot = try receiver.receiving()
        defer { slot.finish() }
        let held = try await store.receivePushedBlob(hash, at: offset, bytes: receiver.body(of: request, limit: status.byteCount - offset),
                                                     from: "push")
        return Response(status: .noContent, headers: [TusProtocol.uploadOffset: String(held)])
    }
}
