/// A transfer under way (an upload, a full image): its progress as it happens, and its result.
public struct TransferTask<Progress: Sendable, Value: Sendable>: Sendable {
    /// Progress steps, ending when the transfer ends (whether it succeeded or not).
    public let progress: AsyncStream<Progress>
    let task: Task<Value, any Error>

    /// The result, once the transfer is complete.
    /// - Throws: `CancellationError` after ``cancel()``; ``AttachmentClientError`` otherwise.
    public var value: Value {
        get async throws { try await task.value }
    }

    /// Stops the transfer.
    public func cancel() { task.cancel() }

    /// Runs `body` in a task of its own, handing it a way to report progress; the progress
    /// stream ends when `body` does.
    static func start(_ body: @escaping @Sendable (_ report: @escaping @Sendable (Progress) -> Void) async throws -> Value) -> Self {
        let (progress, continuation) = AsyncStream.makeStream(of: Progress.self, bufferingPolicy: .bufferingNewest(256))
        let task = Task {
            defer { continuation.finish() }
            return try await body { continuation.yield($0) }
        }
        return Self(progress: progress, task: task)
    }
}
