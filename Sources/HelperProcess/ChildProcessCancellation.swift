import Glibc
import Synchronization

/// Lets another thread stop a helper program while ``LimitedChildProcess/run(_:arguments:limits:cancellation:)``
/// waits for it: ``cancel()`` kills the program's process group at once, or keeps it from
/// starting.
public final class ChildProcessCancellation: Sendable {
    private struct State {
        /// The running child's pid; 0 when none. Cleared before the child is reaped, so a
        /// cancel never signals a pid the kernel may have handed to another process.
        var pid: pid_t = 0
        var cancelled = false
    }

    private let state = Mutex(State())

    /// A fresh, uncancelled token.
    public init() {}

    /// Kills the program now if it runs, or keeps it from starting.
    public func cancel() {
        state.withLock { state in
            state.cancelled = true
            if state.pid > 0 { kill(-state.pid, SIGKILL) }
        }
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Registers the child that was just started; false (and the child killed) when already cancelled.
    func begin(_ pid: pid_t) -> Bool {
        state.withLock { state in
            guard !state.cancelled else {
                kill(-pid, SIGKILL)
                return false
            }
            state.pid = pid
            return true
        }
    }

    /// Unregisters the child; call while it is a zombie, before it is reaped.
    func end() {
        state.withLock { $0.pid = 0 }
    }
}
