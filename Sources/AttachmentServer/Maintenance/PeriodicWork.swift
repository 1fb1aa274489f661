import Logging
import ServiceLifecycle

/// The loop of a maintenance service that does one step every `interval` while the server runs:
/// the first step at once, a failed step logged as a warning (`failure`, with the error) and
/// tried again next time, and the loop ended by the graceful shutdown or a cancellation.
enum PeriodicWork {
    static func run(every interval: Duration, logger: Logger, failure: Logger.Message, step: @escaping @Sendable () async throws -> Void) async {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await step()
                } catch is CancellationError {
                    return
                } catch {
                    logger.warning(failure, metadata: ["error": "\(error)"])
                }
                try? await Task.sleep(for: interval)
            }
        }
    }
}
