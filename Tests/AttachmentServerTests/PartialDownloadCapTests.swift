@testable import AttachmentStore
import AttachmentSync
import Foundation
import Hummingbird
import NIOCore
import Synchronization
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Partial peer downloads in `tmp/` are bounded: a peer that cuts every transfer (and refuses
/// every resume), or one that stalls without closing, cannot grow `tmp/` past its caps or the
/// storage budget, and the running server removes stale partials by itself.
@Suite("Partial downloads are bounded", .timeLimit(.minutes(3)))
struct PartialDownloadCapTests {
    static let blobCount = 12
    static let blobBytes = 1 << 20
    static let budget: Int64 = 3 << 20

    /// The partial download files in `folder`'s `tmp/`: how many and their bytes.
    static func partials(in folder: URL) -> (files: Int, bytes: Int64) {
        let tmp = folder.appending(path: "tmp").path(percentEncoded: false)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []).filter { $0.hasPrefix("fetch-") }
        let bytes = names.reduce(Int64(0)) { total, name in
            total + ((try? FileManager.default.attributesOfItem(atPath: tmp + "/" + name)[.size] as? Int).map(Int64.init) ?? 0)
        }
        return (names.count, bytes)
    }

    /// A store holding `blobCount` different blobs of random bytes, and a second store that
    /// knows them only as records, with `limits` on its partial downloads and a 3 MiB budget.
    static func remoteBlobs(limits: PartialDownloadLimits) async throws -> (local: StoreFixture, blobs: [BlobHash: Data]) {
        let source = try await StoreFixture("partials-source")
        let note = try await source.store.createNote(title: "on the peer")
        var generator = SplitMix(seed: 158)
        var blobs: [BlobHash: Data] = [:]
        for index in 0..<blobCount {
            let data = Data((0..<blobBytes).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let attachment = try await source.store.addAttachment(to: note.id, data: data, filename: "blob-\(index).bin")
            blobs[attachment.blobHash] = data
        }
        var configuration = AttachmentStore.Configuration()
        configuration.partialDownloads = limits
        let local = try await StoreFixture("partials-local", configuration: configuration)
        try await local.store.setStorageBudget(StorageBudget(maxLocalBytes: budget))
        _ = try await local.store.apply(try await source.store.changes(since: 0, limit: 1000))
        return (local, blobs)
    }

    /// A peer that answers every blob request with the whole blob's length, sends `fraction` of
    /// it and then cuts the connection; a `Range` is ignored (every resume is refused).
    static func cuttingPeer(_ blobs: [BlobHash: Data], fraction: Double) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("blobs/sha256/:hash") { _, context -> Response in
            guard let hash = context.parameters.get("hash").flatMap(BlobHash.init(rawValue:)), let data = blobs[hash] else {
                return Response(status: .notFound)
            }
            return Response(status: .ok, headers: [.contentType: "application/octet-stream", .contentLength: String(data.count)],
                            body: ResponseBody { writer in
                                try await writer.write(ByteBuffer(data: data.prefix(Int(Double(data.count) * fraction))))
                                throw CancellationError()  // the connection closes before the rest
                            })
        }
        return router
    }

    @Test("a peer that cuts every transfer midway and refuses every resume: tmp/ stays within the per-peer cap and the budget")
    func cuttingPeerIsBounded() async throws {
        var limits = PartialDownloadLimits()
        limits.maxBytesPerPeer = 2_500_000
        limits.maxFilesPerPeer = 4
        let (local, blobs) = try await Self.remoteBlobs(limits: limits)
        let observed = Mutex((files: 0, bytes: Int64(0)))
        try await HostilePeer.serve(Self.cuttingPeer(blobs, fraction: 0.6)) { url in
            let fetcher = BlobFetcher(peers: [Peer(url: url)])
            // Two rounds: the second tries to resume every cut transfer and is refused.
            for _ in 0..<2 {
                for (hash, data) in blobs {
                    await #expect(throws: SyncError.self) { try await fetcher.fetch(hash, byteCount: Int64(data.count), into: local.store) }
                    let now = Self.partials(in: local.storeURL)
                    observed.withLock { $0 = (max($0.files, now.files), max($0.bytes, now.bytes)) }
                }
            }
        }
        let largest = observed.withLock { $0 }
        #expect(largest.files <= limits.maxFilesPerPeer, "at most \(limits.maxFilesPerPeer) partials: \(largest)")
        #expect(largest.bytes <= limits.maxBytesPerPeer, "within the per-peer cap: \(largest)")
        #expect(largest.bytes <= Self.budget, "within the budget: \(largest)")
        #expect(largest.files >= 2, "cut transfers were kept for a resume, up to the cap: \(largest)")
        let report = try await local.store.enforceStorageBudget()
        #expect(report.partialBytes <= Self.budget)
        for hash in blobs.keys { #expect(try await local.store.hasBlob(hash) == false, "nothing unverified was stored") }
    }

    @Test("partials the budget has no room for are removed oldest first when the budget is enforced")
    func budgetTrimsLeftovers() async throws {
        var limits = PartialDownloadLimits()
        limits.maxBytesPerPeer = .max
        limits.maxFilesPerPeer = .max
        let (local, blobs) = try await Self.remoteBlobs(limits: limits)
        try await HostilePeer.serve(Self.cuttingPeer(blobs, fraction: 0.9)) { url in
            let fetcher = BlobFetcher(peers: [Peer(url: url)])
            for (hash, data) in blobs.prefix(3) {
                await #expect(throws: SyncError.self) { try await fetcher.fetch(hash, byteCount: Int64(data.count), into: local.store) }
            }
        }
        #expect(Self.partials(in: local.storeURL).bytes <= Self.budget)
        // Where each transfer was cut depends on timing (90% sent, less received under load), so
        // which partials must go is worked out from the files themselves: the oldest, until the
        // rest fit in 512 KiB.
        let limit: Int64 = 1 << 19
        let before = Self.partialFiles(in: local.storeURL)
        var held = before.reduce(Int64(0)) { $0 + $1.bytes }
        try #require(held > limit, "the cut transfers left more than \(limit) bytes: \(before)")
        var gone: [String] = []
        for file in before where held > limit {
            held -= file.bytes
            gone.append(file.name)
        }
        try await local.store.setStorageBudget(StorageBudget(maxLocalBytes: limit))
        let report = try await local.store.enforceStorageBudget()
        #expect(report.partialsRemoved == gone.count && report.partialBytes <= limit, "\(report)")
        #expect(Set(Self.partialFiles(in: local.storeURL).map(\.name)) == Set(before.map(\.name)).subtracting(gone), "the oldest went first")
    }

    /// The partial download files in `folder`'s `tmp/`, oldest first.
    static func partialFiles(in folder: URL) -> [(name: String, bytes: Int64, modified: Date)] {
        let tmp = folder.appending(path: "tmp").path(percentEncoded: false)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []).filter { $0.hasPrefix("fetch-") }
        return names.compactMap { name -> (name: String, bytes: Int64, modified: Date)? in
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: tmp + "/" + name),
                  let size = attributes[.size] as? Int, let modified = attributes[.modificationDate] as? Date else { return nil }
            return (name, Int64(size), modified)
        }.sorted { $0.modified < $1.modified }
    }

    @Test("a peer that stalls without closing holds at most its per-peer number of partials; more downloads from it are refused")
    func stallingPeerIsBounded() async throws {
        var limits = PartialDownloadLimits()
        limits.maxFilesPerPeer = 3
        let (local, blobs) = try await Self.remoteBlobs(limits: limits)
        let released = Atomic<Bool>(false)
        let router = Router()
        router.get("blobs/sha256/:hash") { _, context -> Response in
            guard let hash = context.parameters.get("hash").flatMap(BlobHash.init(rawValue:)), let data = blobs[hash] else {
                return Response(status: .notFound)
            }
            return Response(status: .ok, headers: [.contentLength: String(data.count)], body: ResponseBody { writer in
                try await writer.write(ByteBuffer(data: data.prefix(200_000)))
                // Then nothing, without closing, until the test lets go.
                for _ in 0..<600 where !released.load(ordering: .relaxed) { try? await Task.sleep(for: .milliseconds(50)) }
                throw CancellationError()
            })
        }
        let hashes = Array(blobs.keys)
        try await HostilePeer.serve(router) { url in
            let fetcher = BlobFetcher(peers: [Peer(url: url)])
            let stalled = hashes.prefix(3).map { hash in
                Task { try await fetcher.fetch(hash, byteCount: Int64(Self.blobBytes), into: local.store) }
            }
            // The fetcher gathers a MiB before writing, so the stalled partials stay small; what
            // counts is that each is open and holds its place.
            for _ in 0..<200 where Self.partials(in: local.storeURL).files < 3 { try await Task.sleep(for: .milliseconds(50)) }
            #expect(Self.partials(in: local.storeURL).files == 3)
            let refused = await #expect(throws: SyncError.self) {
                try await fetcher.fetch(hashes[3], byteCount: Int64(Self.blobBytes), into: local.store)
            }
            #expect(String(describing: refused).contains("partial downloads from \(url.absoluteString) are under way"), "\(String(describing: refused))")
            #expect(Self.partials(in: local.storeURL).files == 3, "the refused download made no partial")
            for task in stalled { task.cancel() }
            released.store(true, ordering: .relaxed)
            for task in stalled { _ = await task.result }
        }
    }

    @Test("the running server removes stale partials in tmp/ by itself, and never one a download holds")
    func serverExpiresStalePartials() async throws {
        var fixture = try ServerFixture()
        fixture.configuration.budgetInterval = .milliseconds(200)
        fixture.configuration.partialDownloads.lifetime = .seconds(1)
        _ = try await fixture.store()
        let tmp = fixture.configuration.storeDirectory.appending(path: "tmp").path(percentEncoded: false)
        let stale = tmp + "/fetch-" + String(repeating: "ab", count: 32) + ".part"
        let held = tmp + "/fetch-" + String(repeating: "cd", count: 32) + ".part"
        try Data(count: 300_000).write(to: URL(filePath: stale))
        try Data(count: 300_000).write(to: URL(filePath: held))
        let holder = open(held, O_RDONLY | O_CLOEXEC)
        #expect(flock(holder, LOCK_EX) == 0)
        defer { close(holder) }
        try await LiveServerTests.serve(fixture) { _, _ in
            for _ in 0..<100 where FileManager.default.fileExists(atPath: stale) { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(!FileManager.default.fileExists(atPath: stale), "the server removed the stale partial without a gc")
        #expect(FileManager.default.fileExists(atPath: held), "a partial a download holds is never removed")
    }
}
