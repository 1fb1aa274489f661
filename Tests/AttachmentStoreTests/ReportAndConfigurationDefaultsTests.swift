@testable import AttachmentStore
import Foundation
import Testing
import TestSupport

/// The store's small public value types: the documented defaults of its configurations and
/// limits, the derived answers of its reports (totals, cleanliness, availability, progress),
/// and the JSON field names the `--json` output and the HTTP API expose.
@Suite("Reports and configuration defaults")
struct ReportAndConfigurationDefaultsTests {
    static let hash = BlobHash(rawValue: String(repeating: "e", count: 64))!

    @Test("a store's configuration defaults to the documented values")
    func configurationDefaults() {
        let configuration = AttachmentStore.Configuration()
        #expect(configuration.busyTimeout == 30)
        #expect(configuration.blobPlacement == .files)
        #expect(configuration.catalogDatabase == nil && configuration.objectStore == nil && configuration.remoteBlobSource == nil)
        #expect(configuration.uploadLease == .seconds(3600))
        #expect(configuration.imageCacheByteLimit == 32 << 20)
        #expect(configuration.evictionGrace == 10)
        #expect(configuration.peerLimits == PeerInputLimits())
        #expect(configuration.logger.label == "attachment-store")
    }

    @Test("thumbnails default to 200 px, at most 4096, 32 MiB in memory, made after import, one render per core")
    func thumbnailDefaults() {
        let thumbnails = ThumbnailConfiguration()
        #expect(thumbnails.defaultSize == 200 && thumbnails.maximumSize == 4096)
        #expect(thumbnails.memoryCacheByteLimit == 32 << 20)
        #expect(thumbnails.generateAfterImport)
        #expect(thumbnails.maximumConcurrentRenders == ProcessInfo.processInfo.activeProcessorCount)
        #expect(thumbnails.renderOptions.variantName == "q80-webp80")
    }

    @Test("a peer's input is bounded by default at 4 GiB blobs, 5 minutes of skew and the documented field sizes")
    func peerLimitDefaults() {
        let limits = PeerInputLimits()
        #expect(limits.maxBlobBytes == 4_294_967_296)
        #expect(limits.maxClockSkew == .seconds(300))
        #expect(RecordRules.maxTitleBytes == 4096 && RecordRules.maxBodyBytes == 1_048_576 && RecordRules.maxFilenameBytes == 255)
        #expect(limits.maxMetadataEntries == 64 && limits.maxMetadataBytes == 16_384 && limits.maxPosition == 1_000_000)
    }

    @Test("an attachment is readable here exactly when its bytes are present", arguments: StoredAttachment.State.allCases)
    func availability(state: StoredAttachment.State) {
        let attachment = StoredAttachment(
            id: AttachmentID(rawValue: "a"), noteID: NoteID(rawValue: "n"), position: 0, blobHash: Self.hash, byteCount: 1,
            mediaType: "image/jpeg", filename: "a.jpg", image: nil, metadata: [:], createdAt: Date(), updatedAt: Date(), state: state)
        #expect(attachment.availability == (state == .present ? .local : .remote))
    }

    @Test("attachment states are written by their names, which the command line and the API accept")
    func stateNames() {
        #expect(StoredAttachment.State.allCases.map(\.rawValue) == ["present", "remote", "fetching", "evicted", "damaged"])
        #expect(StoredAttachment.Availability.local.rawValue == "local" && StoredAttachment.Availability.remote.rawValue == "remote")
    }

    @Test("an attachment's JSON names every field, leaving out the image and the fetch progress when there are none")
    func attachmentJSON() throws {
        var attachment = StoredAttachment(
            id: AttachmentID(rawValue: "a"), noteID: NoteID(rawValue: "n"), position: 3, blobHash: Self.hash, byteCount: 10,
            mediaType: "text/plain", filename: "a.txt", image: nil, metadata: ["k": "v"],
            createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0), state: .present)
        let plain = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(attachment)) as? [String: Any])
        #expect(Set(plain.keys) == ["id", "noteID", "position", "blobHash", "byteCount", "mediaType", "filename", "metadata",
                                    "createdAt", "updatedAt", "state"])
        attachment.state = .fetching
        attachment.fetchedBytes = 4
        attachment.image = .init(width: 2, height: 1, orientation: 1)
        let data = try JSONEncoder().encode(attachment)
        let fetching = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(fetching["fetchedBytes"] as? Int == 4 && fetching["state"] as? String == "fetching")
        #expect((fetching["image"] as? [String: Any])?["orientation"] as? Int == 1)
        #expect(try JSONDecoder().decode(StoredAttachment.self, from: data) == attachment)
    }

    @Test("a chunk's progress is the share of bytes delivered, and a chunk of an empty file is complete", arguments: [
        (Int64(0), Int64(0), 1.0), (0, 10, 0.0), (5, 10, 0.5), (10, 10, 1.0), (1, 3, 1.0 / 3.0),
    ])
    func chunkFraction(completed: Int64, total: Int64, fraction: Double) {
        #expect(OriginalStream.Chunk(bytes: [], completed: completed, total: total).fraction == fraction)
    }

    @Test("gc's total is the bytes of every kind of garbage it removed")
    func garbageTotal() {
        var report = GarbageReport(dryRun: true)
        #expect(report.totalBytes == 0)
        report.blobBytes = 1000; report.orphanBytes = 200; report.temporaryBytes = 30; report.expiredUploadBytes = 4
        report.blobs = 9; report.keptInGracePeriod = 7
        #expect(report.totalBytes == 1234, "counts of files are not bytes")
    }

    @Test("a verification is clean only without damaged blobs and without catalog problems; leftovers are not damage")
    func verificationClean() {
        var report = VerificationReport()
        report.unreferencedFiles = 3
        report.temporaryFiles = 2
        #expect(report.isClean)
        report.catalogProblems = ["row 4 missing from index note_updatedAt"]
        #expect(!report.isClean)
        report.catalogProblems = []
        report.damage = [.init(kind: .quarantined, hash: Self.hash, detail: "", brokenAttachments: [], brokenImageKeys: [])]
        #expect(!report.isClean)
    }

    @Test("damage kinds are written by name in verify --json", arguments: [
        (VerificationReport.Damage.Kind.missing, "missing"), (.hashMismatch, "hashMismatch"), (.sizeMismatch, "sizeMismatch"),
        (.unreadable, "unreadable"), (.quarantined, "quarantined"),
    ])
    func damageKinds(kind: VerificationReport.Damage.Kind, name: String) throws {
        let damage = VerificationReport.Damage(kind: kind, hash: Self.hash, detail: "d", brokenAttachments: [
            .init(id: AttachmentID(rawValue: "a"), noteID: NoteID(rawValue: "n"), filename: "f.jpg"),
        ], brokenImageKeys: ["k"])
        let object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(damage)) as? [String: Any])
        #expect(object["kind"] as? String == name && object["hash"] as? String == Self.hash.rawValue)
        let broken = try #require((object["brokenAttachments"] as? [[String: Any]])?.first)
        #expect(broken["id"] as? String == "a" && broken["noteID"] as? String == "n" && broken["filename"] as? String == "f.jpg")
    }

    @Test("a new storage budget limits nothing unless told; the reports of a budget and a scrub start at zero")
    func emptyBudgetAndReports() throws {
        #expect(StorageBudget() == StorageBudget(maxLocalBytes: nil, maxThumbnailCacheBytes: nil))
        let budget = try JSONEncoder().encode(StorageBudget(maxLocalBytes: 5))
        #expect(String(decoding: budget, as: UTF8.self) == #"{"maxLocalBytes":5}"#, "an unset limit is left out of the JSON")
        let eviction = EvictionReport()
        #expect(eviction.localBytesBefore == 0 && eviction.originalsEvicted == 0 && eviction.thumbnailsRemoved == 0)
        let scrub = ScrubReport()
        #expect(scrub.blobsChecked == 0 && scrub.quarantined.isEmpty && scrub.repaired.isEmpty && !scrub.passFinished)
    }

    @Test("visible thumbnail requests outrank prefetches")
    func priorities() {
        #expect(ThumbnailPriority.prefetch < .visible)
        #expect([ThumbnailPriority.visible, .prefetch, .visible].sorted() == [.prefetch, .visible, .visible])
    }
}
