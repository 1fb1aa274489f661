import Foundation

/// Runs blocking work on a thread of its own, as the store's thread pools do: never on Swift's
/// cooperative pool, which a test waiting on a child process must not hold.
public enum OwnThread {
    /// The value `body` returns, or what it throws, once it has run on a new thread.
    public static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }
}
