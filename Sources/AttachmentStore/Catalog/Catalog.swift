import Foundation
import GRDB

/// The SQLite catalog: notes, attachment records and blob references. The bytes live elsewhere.
///
/// WAL mode with `synchronous = FULL`, so a committed transaction survives a crash or power
/// loss; immediate write transactions and a busy timeout, so several processes can write one
/// store. `DatabasePool` serialises writes on its own queue and runs reads concurrently,
/// off Swift's cooperative pool.
final class Catalog: Sendable {
    /// The underlying database.
    let pool: DatabasePool

    /// - Throws: ``AttachmentStore/Error/notAStore(path:reason:)`` when the file is not a catalog.
    /// Where this store keeps original bytes (recorded in the catalog at creation).
    let placement: BlobPlacement
    /// This store's stable peer id (recorded in the catalog at creation).
    let peerID: String
    /// The newest clock reading in the catalog, to start the clock past it.
    let latestClock: ClockStamp?

    /// Opens (and migrates) the catalog at `path`; a new catalog records `placement`. Blocks.
    /// A store created with `objectStore` (a ``BlobObjectStore/location``) records it, and must
    /// be opened with the same location afterwards.
    init(path: String, busyTimeout: TimeInterval, placement requested: BlobPlacement,
         objectStore location: String?) throws(AttachmentStore.Error) {
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.label = "AttachmentStore.catalog"
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            try CatalogSchema.migrator.migrate(pool)
            // A store that already holds blobs predates the setting: its bytes are files.
            if requested == .objectStore && location == nil {
                throw AttachmentStore.Error.invalidArgument("objectStore placement needs an object store (Configuration.objectStore, or --blobs s3://…)")
            }
            let wanted = location == nil ? requested : .objectStore
            let (recorded, recordedLocation, peer, latest) = try pool.write { db in
                let hasBlobs = try BlobRecord.fetchCount(db) > 0
                let placement = try StoreSetting.recordOnce("blobPlacement", hasBlobs ? BlobPlacement.files.rawValue : wanted.rawValue, in: db)
                let recordedLocation = placement == BlobPlacement.objectStore.rawValue
                    ? try StoreSetting.recordOnce("objectStoreLocation", location ?? "", in: db) : nil
                let peer = try StoreSetting.recordOnce("peerID", UUID().uuidString.lowercased(), in: db)
                let latest = try String.fetchOne(db, sql: """
                    SELECT MAX(clock) FROM (SELECT clock FROM note UNION ALL SELECT clock FROM attachment
                                            UNION ALL SELECT clock FROM tombstone)
                    """)
                return (placement, recordedLocation, peer, latest)
            }
            placement = BlobPlacement(rawValue: recorded) ?? .files
            if placement == .objectStore || location != nil, recordedLocation != location {
                throw AttachmentStore.Error.blobStorageMismatch(
                    recorded: recordedLocation.map { "the object store \($0)" } ?? (placement == .catalog ? "its catalog" : "files in the store folder"),
                    given: location.map { "the object store \($0)" } ?? "no object store")
            }
            peerID = peer
            latestClock = latest.map(ClockStamp.init(rawValue:))
        } catch let error as AttachmentStore.Error {
            throw error
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            throw .notAStore(path: path, reason: "catalog.sqlite is not a readable SQLite catalog (\(error.message ?? "corrupt"))")
        } catch {
            throw .catalog(String(describing: error))
        }
    }

    /// Runs `body` in one immediate write transaction, mapping database errors to store errors.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.write(body)
        } catch let error as DatabaseError {
            throw Self.storeError(error)
        }
    }

    /// Runs `body` on a consistent snapshot, mapping database errors to store errors.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.read(body)
        } catch let error as DatabaseError {
            throw Self.storeError(error)
        }
    }

    /// The store error a database failure means for a user.
    static func storeError(_ error: DatabaseError) -> AttachmentStore.Error {
        switch error.resultCode {
        case .SQLITE_FULL: .writeFailed(path: "catalog.sqlite", reason: "No space left on device")
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: .catalog("the catalog is damaged (\(error.message ?? "")); run `attach verify`")
        default: .catalog(error.message ?? error.description)
        }
    }
}
