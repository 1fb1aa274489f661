import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// How soon a thumbnail is needed.
public enum ThumbnailPriority: Sendable {
    /// On screen now: asked for before every `prefetch` that waits.
    case visible
    /// About to scroll into view; waits behind the visible ones.
    case prefetch
}

/// How far a full image has come.
public struct DownloadProgress: Sendable, Equatable {
    /// Bytes received so far.
    public var received: Int64
    /// The original's size.
    public var total: Int64
}

/// A full image on its way to a file: its progress as it happens, and the file once complete.
/// Its ``TransferTask/cancel()`` (the "Done" of a full-image sheet) cuts the transfer and
/// removes the partial file.
public typealias DownloadTask = TransferTask<DownloadProgress, URL>

extension AttachmentClient {
    /// The thumbnail of an image attachment, `size` pixels on its longest side (200, 400, 800 or
    /// 2048), as JPEG or WebP bytes.
    ///
    /// At most `thumbnailConcurrency` thumbnails are asked for at once; the rest wait, `visible`
    /// ones first. When the task that awaits this is cancelled — the cell scrolled away — the
    /// request leaves the queue, or is cut if it was already sent: a thumbnail no one awaits
    /// is never fetched.
    /// - Throws: `CancellationError`; ``AttachmentClientError`` (404 `not_an_image` for a file
    ///   that is not an image).
    public func thumbnail(of id: String, size: Int = 200, priority: ThumbnailPriority = .visible) async throws -> Data {
        let waiter = UInt64.random(in: 1..<(UInt64.max / 2))
        try await thumbnailSlots.acquire(id: waiter, urgent: priority == .visible)
        defer { thumbnailSlots.release() }
        try Task.checkCancellation()
        let (_, bytes) = try await send(.GET, "/api/attachments/\(try Self.segment(id))/thumbnail",
                                        query: [URLQueryItem(name: "size", value: String(size))])
        return Data(buffer: bytes)
    }

    /// Downloads the original of an attachment into `destination` (replaced when it exists),
    /// streamed to disk with progress; cancel it to stop.
    public func download(_ id: String, to destination: URL) -> DownloadTask {
        .start { report in try await runDownload(id, to: destination, report: report) }
    }

    private func runDownload(_ id: String, to destination: URL, report: @escaping @Sendable (DownloadProgress) -> Void) async throws -> URL {
        let request = try request(.GET, "/api/attachments/\(try Self.segment(id))/original")
        let response = try await execute(request, timeout: .hours(24))
        guard response.status == .ok else {
            try Self.check(response, try await collect(response.body, upTo: 1 << 20))
            throw AttachmentClientError.unexpectedAnswer("the original answered \(response.status.code)")
        }
        let total = response.headers.first(name: "Content-Length").flatMap { Int64($0) } ?? -1
        let partial = destination.path(percentEncoded: false) + ".partial"
        let file = try await NIOThreadPool.singleton.runIfActive { () throws -> Int32 in
            let fd = open(partial, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw AttachmentClientError.transport("cannot write \(partial): \(String(cString: strerror(errno)))") }
            return fd
        }
        var received: Int64 = 0
        do {
            report(DownloadProgress(received: 0, total: total))
            for try await chunk in response.body {
                try Task.checkCancellation()
                let bytes = Array(chunk.readableBytesView)
                try await NIOThreadPool.singleton.runIfActive {
                    var written = 0
                    while written < bytes.count {
                        let count = bytes.withUnsafeBytes { write(file, $0.baseAddress! + written, bytes.count - written) }
                        guard count >= 0 else { throw AttachmentClientError.transport("cannot write \(partial): \(String(cString: strerror(errno)))") }
                        written += count
                    }
                }
                received += Int64(bytes.count)
                report(DownloadProgress(received: received, total: total))
                try await Self.pace(bytes.count, bandwidth)
            }
            guard total < 0 || received == total else {
                throw AttachmentClientError.transport("the connection closed after \(received) of \(total) bytes")
            }
        } catch {
            // What arrived is of no use without the rest: nothing is left behind.
            await Self.discard(file, partial)
            throw Self.classify(error)
        }
        try await NIOThreadPool.singleton.runIfActive {
            close(file)
            guard rename(partial, destination.path(percentEncoded: false)) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(partial)
                throw AttachmentClientError.transport("cannot move \(partial) into place: \(reason)")
            }
        }
        return destination
    }

    /// Closes and removes a partial download — in a task of its own, as the download's task is
    /// usually the cancelled one, and the thread pool refuses work for a cancelled task.
    private static func discard(_ file: Int32, _ partial: String) async {
        await Task.detached {
            do {
                try await NIOThreadPool.singleton.runIfActive {
                    close(file)
                    unlink(partial)
                }
            } catch {
                // The thread pool is shutting down with the process; the descriptor goes with it.
            }
        }.value
    }
}
