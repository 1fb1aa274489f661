import NIOPosix

/// Runs blocking work (file I/O, fsync, libvips) on threads outside Swift's cooperative pool.
///
/// Every blocking call in the store goes through here, so the caller's tasks never wait
/// on a disk while holding a cooperative thread.
enum BlockingPool {
    /// Runs `body` on NIO's shared blocking-I/O pool and returns its result.
    /// - Throws: whatever `body` throws, or an error when the pool has been shut down.
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(body)
    }
}
