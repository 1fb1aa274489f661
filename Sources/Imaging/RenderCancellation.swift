import CVips
import HelperProcess
import Synchronization

/// Lets another thread stop a render that is running inside libvips.
///
/// The renderer registers the image it is computing; ``cancel()`` marks the render cancelled
/// and asks libvips to stop evaluating that image at its next tile. The image pointer is
/// only touched under the mutex, and the renderer unregisters it before releasing it.
public final class RenderCancellation: Sendable {
    private struct State: @unchecked Sendable {
        // @unchecked: the pointer is only dereferenced while the enclosing Mutex is held, and
        // the renderer clears it (under the same lock) before the image is released.
        var image: OpaquePointer?
        var cancelled = false
    }

    private let state = Mutex(State())
    /// Stops a helper program (ffmpeg, ffprobe) the render runs.
    public let helper = ChildProcessCancellation()

    /// A fresh, uncancelled token.
    public init() {}

    /// Stops the render now if it is running, or before it starts: inside libvips, or a
    /// helper program it waits for.
    public func cancel() {
        state.withLock { state in
            state.cancelled = true
            if let image = state.image { cvips_kill(image) }
        }
        helper.cancel()
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Registers the image being computed; returns false when already cancelled.
    func begin(_ image: OpaquePointer) -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            state.image = image
            return true
        }
    }

    /// Unregisters the image before it is released.
    func end() {
        state.withLock { $0.image = nil }
    }
}
