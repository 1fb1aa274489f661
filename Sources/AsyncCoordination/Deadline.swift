import Synchronization

/// Runs work that must answer within a time limit, such as a health check whose database or
/// object store may hang rather than fail.
public enum Deadline {
    /// Runs `body` and returns its result, or `nil` when it has not finished within `limit`.
    ///
    /// On time-out the caller resumes at once: `body` is cancelled and left to end on its own
    /// (a blocking call it made is not interrupted), so the caller never waits longer than
    /// `limit` for an answer.
    /// - Throws: what `body` throws before the limit.
    public static func run<T: Sendable>(
        within limit: Duration, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T? {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T?, any Error>) in
            let answer = OneAnswer(continuation)
            let work = Task {
                do { answer.give(.success(try await body())) } catch { answer.give(.failure(error)) }
            }
            Task {
                try? await Task.sleep(for: limit)
                // The answer first: cancelled first, work that ends when cancelled could answer
                // in between and win a race it lost.
                answer.give(.success(nil))
                work.cancel()
            }
        }
    }
}

/// A continuation resumed by whichever of two tasks answers first; the later answer is dropped.
private final class OneAnswer<T: Sendable>: Sendable {
    private let pending: Mutex<CheckedContinuation<T?, any Error>?>

    init(_ continuation: CheckedContinuation<T?, any Error>) {
        pending = Mutex(continuation)
    }

    func give(_ result: Result<T?, any Error>) {
        pending.withLock { $0.take() }?.resume(with: result)
    }
}
