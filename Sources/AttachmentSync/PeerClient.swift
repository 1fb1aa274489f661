import AsyncHTTPClient
import AttachmentStore
import Foundation
import NIOCore
import NIOHTTP1

/// Speaks the sync protocol to one peer over HTTP: the change feed and blob bytes (pushing
/// them is in `PeerClient+Push.swift`).
///
/// `GET /sync/changes?since=SEQ&limit=N[&wait=SECONDS]` answers a ``SyncBatch`` as JSON (with
/// `wait`, as soon as there is a change after `SEQ`, or empty once the wait is over);
/// `GET /blobs/sha256/HASH` answers the bytes, honouring `Range` for resumption.
struct PeerClient: Sendable {
    let peer: Peer
    let http: HTTPClient
    /// The longest a request may take before it counts as a cut transfer.
    var timeout: TimeAmount = .seconds(60)

    /// Why a page of the change feed was not read.
    enum BatchError: Error {
        /// The page is larger than the caller takes; ask for fewer changes.
        case tooLarge
    }

    /// The JSON of one page of the peer's change feed, unread, at most `maxBytes` long; with a
    /// `wait` of a second or more the peer holds the request until it has a change after
    /// `sequence` or the wait is over. ``batch(in:)`` reads it.
    /// - Throws: ``BatchError/tooLarge`` when it is longer than `maxBytes`; ``SyncError`` otherwise.
    func changePage(since sequence: Int64, limit: Int, maxBytes: Int, wait: Duration = .zero) async throws -> Data {
        let seconds = wait.components.seconds
        let response = seconds > 0
            ? try await execute(path: "/sync/changes?since=\(sequence)&limit=\(limit)&wait=\(seconds)", timeout: timeout + .seconds(seconds))
            : try await execute(path: "/sync/changes?since=\(sequence)&limit=\(limit)")
        if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > maxBytes {
            throw BatchError.tooLarge
        }
        do {
            return Data(try await response.body.collect(upTo: maxBytes).readableBytesView)
        } catch is NIOTooManyBytesError {
            throw BatchError.tooLarge
        } catch {
            throw SyncError.peerUnreachable(peer: peer.description, reason: "the response was cut: \(error)")
        }
    }

    /// The page `body` holds.
    /// - Throws: ``SyncError/badResponse(peer:reason:)`` when it is not a page's JSON.
    func batch(in body: Data) throws -> SyncBatch {
        do {
            return try SyncBatch(jsonData: body)
        } catch {
            throw SyncError.badResponse(peer: peer.description, reason: "the change feed is not valid JSON (\(error))")
        }
    }

    /// Where the page `body` ends and whether more follow, read without reading its changes
    /// (a scan of the text, a fraction of reading the page): enough to ask for the next page
    /// while this one is read.
    /// - Throws: ``SyncError/badResponse(peer:reason:)`` when it is not a page's JSON.
    func cursor(of body: Data) throws -> PageCursor {
        do {
            return try JSONDecoder().decode(PageCursor.self, from: body)
        } catch {
            throw SyncError.badResponse(peer: peer.description, reason: "the change feed is not valid JSON (\(error))")
        }
    }

    /// A page's `nextSequence` and `hasMore`.
    struct PageCursor: Decodable {
        var nextSequence: Int64
        var hasMore: Bool
    }

    /// The bytes of `hash` from `offset` on, chunk by chunk.
    /// - Returns: the response, whose status is 200 (whole) or 206 (from `offset`).
    func blob(_ hash: BlobHash, from offset: Int64) async throws -> HTTPClientResponse {
        var headers = HTTPHeaders()
        if offset > 0 { headers.add(name: "Range", value: "bytes=\(offset)-") }
        return try await execute(path: "/blobs/sha256/\(hash.rawValue)", headers: headers, acceptPartial: true)
    }

    /// Whether the peer holds the bytes of `hash` itself: `HEAD /blobs/sha256/HASH` answers 200
    /// with the blob's size and its hash as the ETag (a HEAD never makes the peer fetch), and the
    /// range of `sample` comes back as exactly its bytes. Any other answer, or none, is a no.
    func holds(_ hash: BlobHash, byteCount: Int64, sample: BlobSample) async -> Bool {
        let url = peer.url.absoluteString + "/blobs/sha256/\(hash.rawValue)"
        var head = HTTPClientRequest(url: url)
        head.method = .HEAD
        if let token = peer.token { head.headers.add(name: "Authorization", value: "Bearer \(token)") }
        guard let answer = try? await http.execute(head, timeout: .seconds(10)), answer.status.code == 200,
              answer.headers.first(name: "Content-Length") == String(byteCount),
              answer.headers.first(name: "ETag") == "\"\(hash.rawValue)\"" else { return false }
        guard !sample.bytes.isEmpty else { return true }
        var ranged = HTTPClientRequest(url: url)
        ranged.headers.add(name: "Range", value: "bytes=\(sample.offset)-\(sample.offset + Int64(sample.bytes.count) - 1)")
        if let token = peer.token { ranged.headers.add(name: "Authorization", value: "Bearer \(token)") }
        guard let response = try? await http.execute(ranged, timeout: .seconds(10)), response.status.code == 206,
              let body = try? await response.body.collect(upTo: sample.bytes.count + 1) else { return false }
        return Array(body.readableBytesView) == sample.bytes
    }

    /// The peer's own thumbnail of content `hash` (a few kilobytes), for stores that only look:
    /// `GET /blobs/sha256/HASH/thumbnail?size=N`, which the sync scope allows and which names
    /// no attachment. At most `AttachmentStore.maxPeerThumbnailBytes` are read.
    func thumbnail(of hash: BlobHash, size: Int) async throws -> Data {
        let response = try await execute(path: "/blobs/sha256/\(hash.rawValue)/thumbnail?size=\(size)")
        if let announced = response.headers.first(name: "Content-Length").flatMap(Int.init), announced > AttachmentStore.maxPeerThumbnailBytes {
            throw SyncError.badResponse(peer: peer.description,
                                        reason: "its thumbnail is \(announced) bytes, over the limit of \(AttachmentStore.maxPeerThumbnailBytes)")
        }
        return try await collect(response, limit: AttachmentStore.maxPeerThumbnailBytes)
    }

    /// Sends `request` (its URL, `path` under the peer's) with the peer's token, and answers the
    /// response when its status is 200 or 204 (or 206 with `acceptPartial`).
    /// - Throws: ``SyncError/peerUnreachable(peer:reason:)``, ``SyncError/peerCertificateUntrusted(peer:)`` or ``SyncError/peerRefused(peer:status:message:)``.
    func execute(path: String, method: HTTPMethod = .GET, headers: HTTPHeaders = [:], body: HTTPClientRequest.Body? = nil,
                 acceptPartial: Bool = false, timeout: TimeAmount? = nil) async throws -> HTTPClientResponse {
        var request = HTTPClientRequest(url: peer.url.absoluteString + path)
        request.method = method
        request.headers = headers
        request.body = body
        if let token = peer.token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        let response: HTTPClientResponse
        do {
            response = try await http.execute(request, timeout: timeout ?? self.timeout)
        } catch let error as CancellationError {
            throw error
        } catch {
            let text = String(describing: error)
            if text.contains("CERTIFICATE_VERIFY_FAILED") {
                throw SyncError.peerCertificateUntrusted(peer: peer.description)
            }
            throw SyncError.peerUnreachable(peer: peer.description, reason: text)
        }
        let status = Int(response.status.code)
        guard status == 200 || status == 204 || (acceptPartial && status == 206) else {
            let body = (try? await response.body.collect(upTo: 64 << 10)).map { String(buffer: $0) } ?? ""
            throw SyncError.peerRefused(peer: peer.description, status: status, message: Self.message(in: body))
        }
        return response
    }

    func collect(_ response: HTTPClientResponse, limit: Int) async throws -> Data {
        do {
            return Data(try await response.body.collect(upTo: limit).readableBytesView)
        } catch {
            throw SyncError.peerUnreachable(peer: peer.description, reason: "the response was cut: \(error)")
        }
    }

    /// The `message` of a JSON error body, or the body itself: the peer's own words, quoted
    /// and escaped (`PeerText`) and shortened, so they can go into a log line or onto a terminal.
    static func message(in body: String) -> String {
        guard !body.isEmpty else { return "" }
        if let data = body.data(using: .utf8),
           let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
           let error = object["error"] as? [String: Any], let message = error["message"] as? String {
            return PeerText.quoted(message, limit: 200)
        }
        return PeerText.quoted(body, limit: 200)
    }
}
