import AttachmentStore
import AttachmentSync
import Foundation
import Hummingbird
import ServiceLifecycle

/// The peer side of sync: `GET /sync/changes` (records, never bytes; with `wait=SECONDS` it is
/// a long poll, answered as soon as there is a change), `GET /sync/status`, and
/// `GET|HEAD /blobs/sha256/{hash}` (bytes by content hash, with `Range` for resumption; a
/// `HEAD` answers 200 only for bytes held here, and never fetches) and
/// `GET /blobs/sha256/{hash}/thumbnail` (this server's own thumbnail of content it holds).
/// When the server has a token, all of them need credentials of scope ``AccessScope/syncRead``
/// (the sync token) or ``AccessScope/full``.
struct SyncRoutes {
    let dependencies: ServerDependencies

    func register(on router: some RouterMethods<AppRequestContext>) {
        router.get("sync/changes", use: changes)
        router.get("sync/status", use: status)
        router.get("blobs/sha256/:hash", use: blob)
        router.get("blobs/sha256/:hash/thumbnail", use: blobThumbnail)
    }

    @Sendable func changes(_ request: Request, context: AppRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let since = try Self.integer(query.get("since"), name: "since", default: 0, range: 0...Int64.max)
        let limit = try Self.integer(query.get("limit"), name: "limit", default: 500, range: 1...10_000)
        let wait = try Self.integer(query.get("wait"), name: "wait", default: 0, range: 0...Self.longestWait)
        if wait > 0 {
            // Held until the feed moves past `since`, the wait ends, the client's task is
            // cancelled, or the server begins a graceful shutdown (which then answers at once).
            _ = await cancelWhenGracefulShutdown { await dependencies.store.waitForChanges(after: since, upTo: .seconds(wait)) }
        }
        let batch = try await dependencies.store.changes(since: since, limit: Int(limit))
        return Response(status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                        body: .init(byteBuffer: ByteBuffer(bytes: try batch.jsonData())))
    }

    /// The longest `wait` a request may ask for, in seconds: under the 60-second read timeouts
    /// of common proxies (nginx's `proxy_read_timeout`), so a held request is never cut by one.
    static let longestWait: Int64 = 55

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
        let hash = try context.blobHash()
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
            .cacheControl: CacheControl.immutablePrivate,
            .contentDisposition: "attachment", .contentSecurityPolicy: "default-src 'none'; sandbox",
        ]
        let path = file.url.path(percentEncoded: false)
        return try await FileResponse.answer(
            request, tag: EntityTag.of(hash), size: file.byteCount, contentType: "application/octet-stream", headers: headers,
            body: { bytes in try await body(path: path, range: bytes, context: context) },
            sending: { dependencies.syncCounters.served($0) })
    }

    /// `GET /blobs/sha256/{hash}/thumbnail?size=N`: this server's own thumbnail of content it
    /// holds, for a peer that fetches thumbnails ahead (with the sync scope, naming no
    /// attachment). Never fetched from this server's own peers, never a peer's copy: 404
    /// `blob_not_here` when the original is not here.
    @Sendable func blobThumbnail(_ request: Request, context: AppRequestContext) async throws -> Response {
        let hash = try context.blobHash()
        let size = try ThumbnailRoute.size(request.uri.queryParameters.get("size"), allowed: dependencies.configuration.thumbnailSizes)
        let thumbnail: Thumbnail
        do {
            thumbnail = try await dependencies.store.thumbnail(ofBlob: hash, maxPixelSize: size)
        } catch AttachmentStore.Error.blobMissing {
            throw ServerError.notFound("this peer does not have the bytes of blob \(hash)", code: "blob_not_here")
        }
        return Response(status: .ok, headers: [.contentType: thumbnail.mediaType, .cacheControl: "no-store",
                                               .eTag: ThumbnailRoute.tag(hash: hash.rawValue, size: size)],
                        body: .init(byteBuffer: ByteBuffer(bytes: thumbnail.data)))
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
