import Imaging
import Synchronization

/// libvips started on the blocking pool while an image's bytes are still arriving, so the
/// header read that ends the ingest does not wait for it.
///
/// Once started, a warm-up must be awaited (``settle()``) before the process may exit: a
/// process that ends while libvips is still loading on another thread corrupts its heap.
/// Starting twice starts once.
final class ImagingWarmUp: Sendable {
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Starts loading libvips in the background, unless that was already asked for.
    func start() {
        task.withLock { task in
            guard task == nil else { return }
            task = Task { _ = try? await BlockingPool.run { try ImageProbe.prepare() } }
        }
    }

    /// Returns once the warm-up, if one was started, has ended (libvips started or failed to).
    func settle() async {
        await task.withLock { $0 }?.value
    }
}
