/// The result of uploading a file with ``S3Client/putObject(key:fileAt:)``.
public struct S3Upload: Sendable, Equatable {
    /// The object's key.
    public let key: String
    /// The number of bytes uploaded.
    public let size: Int64
    /// The ETag the server answered, without quotes.
    public let etag: String
    /// The hex SHA-256 of the bytes sent, computed while they streamed from the file; compare
    /// it with the expected content hash before referencing the object.
    public let sha256: String
    /// The number of parts of a multipart upload; 0 for a single PUT.
    public let partCount: Int
}
