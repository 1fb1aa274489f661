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

    /// Runs `body` on the store's blocking pool and returns its result.
    /// - Throws: whatever `body` throws.
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await threads.runIfActive(body)
    }
}
