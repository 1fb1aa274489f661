import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// How far an upload has come.
public struct UploadProgress: Sendable, Equatable {
    /// Bytes the server holds or that are on their way to it.
    public var sent: Int64
    /// The file's size.
    public var total: Int64
    /// Where the current attempt continued from: 0 for a fresh start, more after a resume.
    public var resumedFrom: Int64
}

/// An upload under way: its progress as it happens, and the attachment it becomes. Its
/// ``TransferTask/cancel()`` stops sending; the bytes the server already holds stay there, so
/// uploading the same file to the same note again (with the same ``UploadResumptions``)
/// continues from them.
public typealias UploadTask = TransferTask<UploadProgress, RemoteAttachment>

/// Where unfinished uploads stand, by file (note, path, size and modification date): the
/// server's address for each. Keep one for the life of an app (and, to continue after a
/// restart, save ``entries`` and give them back to ``init(entries:)``).
public final class UploadResumptions: Sendable {
    private let addresses: Mutex<[String: String]>

    /// Resumptions from `entries` (what ``entries`` returned earlier), or none.
    public init(entries: [String: String] = [:]) {
        addresses = Mutex(entries)
    }

    /// Every unfinished upload: a key naming the file, and the upload's address.
    public var entries: [String: String] { addresses.withLock { $0 } }

    subscript(key: String) -> String? {
        get { addresses.withLock { $0[key] } }
        set { addresses.withLock { $0[key] = newValue } }
    }
}

extension AttachmentClient {
    /// Uploads the file at `file` to the end of note `note` by the tus protocol, resuming from
    /// the server's offset after a dropped connection (up to `retries` times in a row, with
    /// back-off) or after ``TransferTask/cancel()`` and a new call for the same file.
    ///
    /// Known bytes are never sent twice: before a new upload the file is hashed (off the
    /// cooperative pool) and its digest sent with the upload's creation (`Repr-Digest`); when the
    /// server already holds those bytes — the same photo imported again, an app reinstalled —
    /// the upload is finished at once and nothing more is sent.
    public func upload(fileAt file: URL, to note: String, filename: String? = nil, retries: Int = 8) -> UploadTask {
        .start { report in
            try await runUpload(file: file, note: note, filename: filename ?? file.lastPathComponent, retries: retries, report: report)
        }
    }

    /// What the server holds of an upload.
    struct UploadStatus {
        var offset: Int64
        var attachment: String?
    }

    private func runUpload(file: URL, note: String, filename: String, retries: Int,
                           report: @escaping @Sendable (UploadProgress) -> Void) async throws -> RemoteAttachment {
        let path = file.path(percentEncoded: false)
        let (size, modified) = try await NIOThreadPool.singleton.runIfActive { () throws -> (Int64, Double) in
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            return ((attributes[.size] as? NSNumber)?.int64Value ?? 0, (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)
        }
        let key = "\(server.absoluteString)|\(note)|\(path)|\(size)|\(modified)"
        var location: String
        var offset: Int64 = 0
        if let saved = resumptions[key], let status = try await uploadStatus(saved) {
            if let done = status.attachment {
                resumptions[key] = nil
                return try await attachment(done)
            }
            location = saved
            offset = status.offset
        } else {
            let digest = try await Self.sha256(ofFileAt: path)
            let created = try await createUpload(note: note, filename: filename, size: size, digest: digest)
            if let done = created.attachment {
                report(UploadProgress(sent: size, total: size, resumedFrom: size))
                return try await attachment(done)
            }
            location = created.location
            resumptions[key] = location
        }
        var resumedFrom = offset
        report(UploadProgress(sent: offset, total: size, resumedFrom: resumedFrom))
        var failures = 0
        while true {
            do {
                let from = resumedFrom
                let status = try await patch(location, path: path, offset: offset, size: size) { sent in
                    report(UploadProgress(sent: sent, total: size, resumedFrom: from))
                }
                if let done = status.attachment {
                    resumptions[key] = nil
                    return try await attachment(done)
                }
                offset = status.offset
                failures = 0
            } catch let error as AttachmentClientError where error.isTransient && failures < retries {
                failures += 1
                try await Task.sleep(for: .milliseconds(min(8000, 250 << failures)))
                let status: UploadStatus?
                do {
                    status = try await uploadStatus(location)
                } catch let again as AttachmentClientError where again.isTransient {
                    continue
                }
                guard let status else {
                    resumptions[key] = nil
                    throw AttachmentClientError.uploadGone
                }
                if let done = status.attachment {
                    resumptions[key] = nil
                    return try await attachment(done)
                }
                offset = status.offset
                resumedFrom = offset
                report(UploadProgress(sent: offset, total: size, resumedFrom: resumedFrom))
            }
        }
    }

    private func tusRequest(_ method: HTTPMethod, _ path: String) throws -> HTTPClientRequest {
        var request = try request(method, path)
        request.headers.add(name: "Tus-Resumable", value: "1.0.0")
        return request
    }

    /// The SHA-256 of the file at `path`, read on NIO's thread pool.
    static func sha256(ofFileAt path: String) async throws -> [UInt8] {
        try await NIOThreadPool.singleton.runIfActive {
            guard let handle = FileHandle(forReadingAtPath: path) else { throw AttachmentClientError.fileUnreadable(path) }
            defer { try? handle.close() }
            var hasher = SHA256()
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                hasher.update(data: chunk)
            }
            return Array(hasher.finalize())
        }
    }

    /// Creates an upload, naming the whole file's digest; its address, and the attachment it
    /// already became when the server held the bytes.
    private func createUpload(note: String, filename: String, size: Int64, digest: [UInt8]) async throws -> (location: String, attachment: String?) {
        var request = try tusRequest(.POST, "/api/uploads")
        request.headers.add(name: "Upload-Length", value: String(size))
        request.headers.add(name: "Repr-Digest", value: "sha-256=:\(Data(digest).base64EncodedString()):")
        let metadata = "noteId \(Data(note.utf8).base64EncodedString()),filename \(Data(filename.utf8).base64EncodedString())"
        request.headers.add(name: "Upload-Metadata", value: metadata)
        let response = try await execute(request, timeout: Self.requestTimeout)
        try Self.check(response, try await collect(response.body, upTo: 1 << 20))
        // The address is used for every later request: only `/api/uploads/<32 hex digits>` on
        // this same server is taken, never another host or a path that climbs out (`..`).
        let prefix = "/api/uploads/"
        guard let location = response.headers.first(name: "Location"), location.hasPrefix(prefix),
              case let id = location.dropFirst(prefix.count), id.utf8.count == 32,
              id.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) || ("a"..."f").contains($0) }) else {
            throw AttachmentClientError.unexpectedAnswer("creating an upload gave no Location of an upload on this server")
        }
        let attachment = response.headers.first(name: "Attachment-Id").flatMap { id in UUID(uuidString: id).map { _ in id.lowercased() } }
        return (location, attachment)
    }

    /// `nil` when the server no longer knows the upload.
    func uploadStatus(_ location: String) async throws -> UploadStatus? {
        let response = try await execute(try tusRequest(.HEAD, location), timeout: Self.requestTimeout)
        let bytes = try await collect(response.body, upTo: 1 << 20)
        if response.status == .notFound || response.status == .gone { return nil }
        try Self.check(response, bytes)
        return try Self.status(of: response)
    }

    private func patch(_ location: String, path: String, offset: Int64, size: Int64,
                       sent: @escaping @Sendable (Int64) -> Void) async throws -> UploadStatus {
        var request = try tusRequest(.PATCH, location)
        request.headers.add(name: "Upload-Offset", value: String(offset))
        request.headers.add(name: "Content-Type", value: "application/offset+octet-stream")
        let counted = Mutex(offset)
        let chunks = FileChunks(path: path, offset: offset, bandwidth: bandwidth) { count in
            sent(counted.withLock { total in
                total += Int64(count)
                return total
            })
        }
        request.body = .stream(chunks, length: .known(size - offset))
        let response = try await execute(request, timeout: .hours(24))
        try Self.check(response, try await collect(response.body, upTo: 1 << 20))
        return try Self.status(of: response)
    }

    private static func status(of response: HTTPClientResponse) throws -> UploadStatus {
        guard let text = response.headers.first(name: "Upload-Offset"), let offset = Int64(text) else {
            throw AttachmentClientError.unexpectedAnswer("the upload's answer has no Upload-Offset")
        }
        return UploadStatus(offset: offset, attachment: response.headers.first(name: "Attachment-Id"))
    }
}
