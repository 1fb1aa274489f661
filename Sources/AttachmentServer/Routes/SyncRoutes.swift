import AttachmentStore
import Foundation
import Hummingbird

/// The peer side of sync: `GET /sync/changes` (records, never bytes), `GET /sync/status`, and
/// `GET|HEAD /blobs/sha256/{hash}` (bytes by content hash, with `Range` for resumption).
/// All of them need the bearer token when the server has one.
struct SyncRoutes {
    let dependencies: ServerDependencies

    func register(on router: Router<AppRequestContext>) {
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
    }

    @Sendable func status(_ request: Request, context: AppRequestContext) async throws -> Status {
        Status(peerID: dependencies.store.peerID, blobBytesServed: dependencies.syncCounters.blobBytesServed,
               blobBytesReceived: dependencies.fetcher?.bytesReceived ?? 0,
               remoteBlobs: try await dependencies.store.remoteBlobs().count)
    }

    @Sendable func blob(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let hash = BlobHash(rawValue: context.parameters.get("hash") ?? "") else {
            throw ServerError.badRequest("a blob is named by 64 lowercase hexadecimal characters", code: "bad_hash")
        }
        let file: (url: URL, byteCount: Int64)
        do {
            file = try await dependencies.store.blobFile(hash)
        } catch AttachmentStore.Error.blobMissing {
            throw ServerError.notFound("this peer does not have the bytes of blob \(hash)", code: "blob_not_here")
        }
        let tag = EntityTag.of(hash)
        var headers: HTTPFields = [
            .eTag: tag, .acceptRanges: "bytes", .cacheControl: "public, max-age=31536000, immutable",
            .contentDisposition: "attachment", .contentSecurityPolicy: "default-src 'none'; sandbox",
        ]
        if EntityTag.ifNoneMatch(request.headers[.ifNoneMatch], matches: tag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "application/octet-stream"
        let path = file.url.path(percentEncoded: false)
        switch ByteRange(header: request.headers[.range], size: file.byteCount) {
        case .unsatisfiable:
            throw ServerError(.rangeNotSatisfiable, code: "range_not_satisfiable",
                              message: "the range lies outside the \(file.byteCount) bytes", headers: [.contentRange: "bytes */\(file.byteCount)"])
        case .satisfiable(let bytes):
            headers[.contentRange] = "bytes \(bytes.lowerBound)-\(bytes.upperBound)/\(file.byteCount)"
            if request.method == .get { dependencies.syncCounters.served(bytes.upperBound - bytes.lowerBound + 1) }
            let body = try await dependencies.fileIO.loadFile(path: path, range: Int(bytes.lowerBound)...Int(bytes.upperBound), context: context)
            return Response(status: .partialContent, headers: headers, body: body)
        case .ignored:
            headers[.contentLength] = String(file.byteCount)
            guard file.byteCount > 0, request.method == .get else { return Response(status: .ok, headers: headers) }
            dependencies.syncCounters.served(file.byteCount)
            return Response(status: .ok, headers: headers, body: try await dependencies.fileIO.loadFile(path: path, context: context))
        }
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
