@testable import AttachmentS3
import AttachmentStore
import Foundation
import S3Client
import Testing

/// `BlobStorageLocation.originals()`: what `--blobs` gives a store's configuration, as one value.
@Suite("AttachmentS3: the originals a location gives")
struct OriginalsLocationTests {
    @Test("files give files; a directory or a bucket gives that object store, with its location")
    func locationsGiveOriginals() throws {
        #expect(BlobStorageLocation.files.originals().placement == .files)
        #expect(BlobStorageLocation.files.originals().objectStore == nil)
        let directory = BlobStorageLocation.directory(URL(filePath: "/srv/shared-blobs")).originals()
        #expect(directory.placement == .objectStore)
        #expect(directory.objectStore?.location == BlobStorageLocation.directory(URL(filePath: "/srv/shared-blobs")).objectStore()?.location)
        let s3 = try S3BlobObjectStoreKeyTests.configuration(bucket: "photos")
        let bucket = BlobStorageLocation.s3(s3, prefix: "p").originals()
        #expect(bucket.placement == .objectStore)
        #expect(bucket.objectStore?.location.hasPrefix("s3://photos/p/") == true)
    }
}
