import CatalogSQL
import Foundation

/// The catalog: notes, attachment records and blob references, in an ``SQLDatabase`` (SQLite in
/// the store folder by default, or PostgreSQL shared by several servers). The bytes live elsewhere.
///
/// Every catalog operation of the store is SQL both databases understand, run in ``write(_:)``
/// (one writer at a time, durable), ``write(locking:_:)`` (beside writers of other notes and
/// blobs, on PostgreSQL) or ``read(_:)`` (a consistent snapshot).
final class Catalog: Sendable {
    /// The database.
    let database: any SQLDatabase
    /// Where this store keeps original bytes (recorded in the catalog at creation).
    let placement: BlobPlacement
    /// This store's stable peer id (recorded in the catalog at creation).
    let peerID: String
    /// The newest clock reading in the catalog, to start the clock past it.
    let latestClock: ClockStamp?
    /// Wakes those waiting for the change feed; every write of this process pokes it.
    let changeFeed: ChangeFeedWatcher

    private init(database: any SQLDatabase, placement: BlobPlacement, peerID: String, latestClock: ClockStamp?) {
        self.database = database
        self.placement = placement
        self.peerID = peerID
        self.latestClock = latestClock
        changeFeed = ChangeFeedWatcher { try await Self.feedPosition(in: database) }
    }

    /// Asks the catalog the smallest question there is: whether it answers at all.
    static func answer(in db: any SQLTransaction) throws {
        _ = try db.queryOne("SELECT 1 AS n")
    }

    /// The change feed's newest position (0 while it is empty).
    static func feedPosition(in db: any SQLTransaction) throws -> Int64 {
        try db.queryOne("SELECT MAX(seq) AS latest FROM change")?.int64("latest") ?? 0
    }

    /// ``feedPosition(in:)`` in a read of its own.
    static func feedPosition(in database: any SQLDatabase) async throws -> Int64 {
        try await database.read { db in try feedPosition(in: db) }
    }

    /// The newest clock of any note, attachment or tombstone: each table's by its index (`v8`),
    /// then the newest of the three, so opening a store costs the same at any size.
    static let latestClockQuery = """
        SELECT MAX(newest) AS latest FROM (SELECT MAX(clock) AS newest FROM note
                                           UNION ALL \(AttachmentRecord.newestClockQuery)
                                           UNION ALL SELECT MAX(clock) FROM tombstone) AS clocks
        """

    /// Opens the catalog in `database` (already migrated); a new catalog records `placement`
    /// and `objectStore` (a ``BlobObjectStore/location``, given exactly when `placement` is
    /// ``BlobPlacement/objectStore``), and an existing one must be opened with the same object store.
    /// - Throws: ``AttachmentStore/Error/blobStorageMismatch(recorded:given:)``,
    ///   catalog errors.
    static func open(_ database: any SQLDatabase, placement requested: BlobPlacement, objectStore location: String?) async throws -> Catalog {
        // One write transaction, also when everything is recorded already: a read first was
        // tried, and met the race `SQLiteCatalogDatabase.oneOpeningAtATime` now prevents.
        let (recorded, recordedLocation, peer, latest) = try await mapped {
            try await database.write { db in
                // A store that already holds blobs predates the setting: its bytes are files.
                let hasBlobs = try db.queryOne("SELECT EXISTS (SELECT 1 FROM blob) AS found")?.bool("found") ?? false
                let placement = try StoreSetting.recordOnce(
                    "blobPlacement", BlobPlacement.toRecord(asked: requested, catalogHasBlobs: hasBlobs).rawValue, in: db)
                let recordedLocation = BlobPlacement(rawValue: placement)?.recordsLocation == true
                    ? try StoreSetting.recordOnce("objectStoreLocation", location ?? "", in: db) : nil
                let peer = try StoreSetting.recordOnce("peerID", UUID().uuidString.lowercased(), in: db)
                let latest = try db.queryOne(Self.latestClockQuery)?.string("latest")
                return (placement, recordedLocation, peer, latest)
            }
        }
        let placement = BlobPlacement(rawValue: recorded) ?? .files
        if let mismatch = placement.mismatch(recordedLocation: recordedLocation, given: location) { throw mismatch }
        return Catalog(database: database, placement: placement, peerID: peer, latestClock: latest.map(ClockStamp.init(rawValue:)))
    }

    /// Runs `body` in one write transaction (no other writer overlaps it), mapping database
    /// errors to store errors.
    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) throws -> T) async throws -> T {
        defer { changeFeed.poke() }
        return try await Self.mapped { try await database.write(body) }
    }

    /// Runs `body` in a write transaction that only waits for ``write(_:)`` and for writers of
    /// the same `locks`; `body` changes only what its locks cover (see ``CatalogLock``).
    func write<T: Sendable>(locking locks: [CatalogLock], _ body: @escaping @Sendable (any SQLTransaction) throws -> T) async throws -> T {
        let keys = Set(locks.map(\.key))
        defer { changeFeed.poke() }
        return try await Self.mapped { try await database.write(locking: keys, body) }
    }

    /// ``write(locking:_:)`` with `locks`, or ``write(_:)`` when there are none.
    func write<T: Sendable>(lockingIfAny locks: [CatalogLock]?, _ body: @escaping @Sendable (any SQLTransaction) throws -> T) async throws -> T {
        if let locks { try await write(locking: locks, body) } else { try await write(body) }
    }

    /// Runs `body` on a consistent snapshot, mapping database errors to store errors.
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) throws -> T) async throws -> T {
        try await Self.mapped { try await database.read(body) }
    }

    /// Problems the database finds in itself.
    func integrityProblems() async throws -> [String] {
        try await Self.mapped { try await database.integrityProblems() }
    }

    private static func mapped<T>(_ operation: () async throws -> T) async throws -> T {
        do {
            return try await operation()
        } catch let error as SQLDatabaseError {
            throw storeError(error)
        } catch let error as SQLDecodingError {
            throw AttachmentStore.Error.catalog(SQLDatabaseError(.other, error.description))
        }
    }

    /// The store error a database failure means for a user.
    static func storeError(_ error: SQLDatabaseError) -> AttachmentStore.Error {
        switch error.kind {
        case .full: .writeFailed(path: "catalog", cause: .database(error))
        case .corrupt: .catalogDamaged(error)
        case .unavailable: .catalogUnavailable(error)
        case .newerSchema: .catalogFromNewerRelease(error)
        case .constraint, .other: .catalog(error)
        }
    }
}
