import AttachmentStore
import ServiceLifecycle

/// Waits for graceful shutdown, then for the store's background work (thumbnail renders and
/// prefetches under way) to finish, so the process never exits in the middle of a cache write.
struct StoreDrainService: Service {
    let store: AttachmentStore

    func run() async throws {
        try? await gracefulShutdown()
        await store.waitForBackgroundWork()
    }
}
