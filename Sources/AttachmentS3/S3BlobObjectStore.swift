import AttachmentStore
import Foundation
import S3Client

/// Original bytes in an S3 bucket: one object per blob, named `<prefix>sha256/<hash>`.
///
/// Uploads stream from the staged file (multipart above the client's threshold) and are
/// accepted only when the SHA-256 of what was sent equals the blob's name; downloads stream
/// into a file. Several stores may share a bucket under different prefixes; stores sharing one
/// prefix must share one catalog too (several servers on one backend).
public struct S3BlobObjectStore: BlobObjectStore {
    /// The client, for one bucket.
    public let client: S3Client
    /// What every key starts with: empty, or ending in `/`.
    public let prefix: String

    /// An object store over `client`'s bucket, under `prefix` (a `/` is added when missing).
    public init(client: S3Client, prefix: String = "") {
        self.client = client
        let trimmed = prefix.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        self.prefix = trimmed.isEmpty ? "" : trimmed + "/"
    }

    /// `s3://bucket/prefix at endpoint`: the same for every client of these objects.
    public var location: String {
        "s3://\(client.configuration.bucket)/\(prefix) at \(client.configuration.endpoint.absoluteString)"
    }

    /// The key of a blob's object.
    public func key(for hash: BlobHash) -> String { "\(prefix)sha256/\(hash.rawValue)" }

    public func upload(fileAt path: String, as hash: BlobHash, byteCount: Int64) async throws {
        let upload: S3Upload
        do {
            upload = try await client.putObject(key: key(for: hash), fileAt: path)
        } catch {
            throw mapped(error, operation: "upload blob \(hash.short)", hash: hash)
        }
        guard upload.sha256 == hash.rawValue, upload.size == byteCount else {
            // What was sent is not the blob; make sure nothing keeps it under this name.
            var reason = "the upload sent \(upload.size) bytes hashing to \(upload.sha256)"
            do {
                try await client.deleteObject(key: upload.key)
            } catch {
                reason += "; deleting that object failed too (\(error)); garbage collection removes it once S3 answers"
            }
            throw BlobObjectStoreError.corrupt(hash, reason: reason)
        }
    }

    public func download(_ hash: BlobHash, toFile path: String) async throws {
        do {
            try await client.getObject(key: key(for: hash), toFile: path)
        } catch {
            throw mapped(error, operation: "download blob \(hash.short)", hash: hash)
        }
    }

    public func size(of hash: BlobHash) async throws -> Int64? {
        do {
            return try await client.headObject(key: key(for: hash))?.size
        } catch {
            throw mapped(error, operation: "look up blob \(hash.short)", hash: hash)
        }
    }

    public func delete(_ hash: BlobHash) async throws {
        do {
            try await client.deleteObject(key: key(for: hash))
        } catch {
            throw mapped(error, operation: "delete blob \(hash.short)", hash: hash)
        }
    }

    public func objects() -> AsyncThrowingStream<BlobObject, any Error> {
        let listing = client.listObjects(prefix: prefix + "sha256/")
        let store = self
        return AsyncThrowingStream { continuation in
            // The listing pages lazily; this task drives it and ends with the stream's consumer.
            let task = Task {
                do {
                    for try await object in listing {
                        let name = String(object.key.split(separator: "/").last ?? "")
                        guard let hash = BlobHash(rawValue: name) else { continue }
                        continuation.yield(BlobObject(hash: hash, byteCount: object.size, lastModified: object.lastModified))
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: store.mapped(error, operation: "list the blobs"))
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The object-store error for a client failure; cancellation passes through.
    func mapped(_ error: any Error, operation: String, hash: BlobHash? = nil) -> any Error {
        switch error {
        case S3ClientError.noSuchKey where hash != nil:
            return BlobObjectStoreError.missing(hash!)
        case is CancellationError:
            return error
        default:
            return BlobObjectStoreError.unavailable(operation: operation, location: location, cause: .init(error))
        }
    }
}
