import NIOCore
import NIOPosix

/// Runs blocking work (file I/O, fsync, libvips probes) on threads outside Swift's cooperative pool.
///
/// Every blocking call in the store goes through here, so the caller's tasks never wait
/// on a disk while holding a cooperative thread. The store has a pool of its own, larger than
/// the core count: these threads mostly wait on the disk (an fsync of a 20 MB upload takes
/// a while), and with one thread per core, as NIO's shared pool has, one slow flush would hold
/// up every other file operation of the process, such as the server's reads of originals.
enum BlockingPool {
    /// The store's blocking threads: four per core, at least eight. Started on first use and
    /// kept for the life of the process.
    private static let threads: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: max(8, 4 * System.coreCount))
        pool.start()
        return pool
    }()

    /// Catalog reads' own threads, one per core (at least two): a read waits only for SQLite,
    /// never behind file I/O, and costs one hop to a waiting thread and back. GRDB's own async
    /// read hops through more queues (micro-benchmark median 73 µs against 30 µs). More threads
    /// than cores made the server slower (five: 13.1k `GET /api/attachments/ID` a second
    /// against GRDB's 15.1k; one per core: 22.5k), as the threads woke one another on two
    /// cores. One thread was faster still (25.2k), but would hold every read up behind a long one.
    private static let catalogReadThreads: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: max(2, System.coreCount))
        pool.start()
        return pool
    }()

    /// Runs `body` on the store's blocking pool and returns its result.
    /// - Throws: whatever `body` throws.
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await threads.runIfActive(body)
    }

    /// Runs clean-up that reports nothing (closing a descriptor, removing a temporary file of
    /// ours) on the store's blocking pool — or here, when the pool no longer runs work.
    static func runCleanup(_ body: @escaping @Sendable () -> Void) async {
        do {
            try await threads.runIfActive(body)
        } catch {
            body()
        }
    }

    /// Runs a catalog read (`body` waits only for SQLite) on the catalog reads' threads.
    /// - Throws: whatever `body` throws.
    static func runCatalogRead<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await catalogReadThreads.runIfActive(body)
    }
}
