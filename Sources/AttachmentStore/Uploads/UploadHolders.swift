import Synchronization

/// The requests of this process that are writing a resumable upload, each with the moment its
/// last byte arrived and a way to stop it: the lock handover.
///
/// A link that dies silently (a phone leaves Wi-Fi) leaves the server's request waiting for bytes
/// that never come, holding the upload's writer lock until the connection times out. When the
/// client comes back on a new connection, its request finds the lock held. If the holder has
/// received nothing for ``idleAfter``, it is asked to stop: it keeps what arrived (made durable,
/// as for any request cut off) and releases the lock, and the new request continues from the true
/// offset. A holder whose bytes are still arriving is a live writer and is left alone (423).
///
/// A holder on another server of a shared store is asked through the catalog instead
/// (``UploadStaging/requestHandover(_:)``); its server's watch stops it the same way.
final class UploadHolders: Sendable {
    /// How long a holder must have received nothing to count as abandoned.
    /// A live client on a poor link pauses for less; a client whose link died reconnects later.
    static let idleAfter: Duration = .seconds(1)

    /// One request writing an upload.
    final class Holder: Sendable {
        private struct State {
            var lastByte: ContinuousClock.Instant
            var stopped = false
        }

        private let state: Mutex<State>
        /// Stops the request's byte sequence (closes its connection), so that it ends as a request
        /// cut off; `nil` when the caller gave no way to, and then the holder is never stopped.
        private let interrupt: (@Sendable () -> Void)?

        /// A holder whose bytes start arriving now.
        init(interrupt: (@Sendable () -> Void)?) {
            self.state = Mutex(State(lastByte: .now))
            self.interrupt = interrupt
        }

        /// Records that a byte arrived.
        func touch() {
            state.withLock { $0.lastByte = .now }
        }

        /// Whether nothing arrived for ``UploadHolders/idleAfter``.
        var isIdle: Bool {
            state.withLock { ContinuousClock.now - $0.lastByte >= UploadHolders.idleAfter }
        }

        /// Asks the request to stop when it is idle and can be stopped; whether it was asked (now
        /// or before).
        @discardableResult
        func stopIfIdle() -> Bool {
            guard let interrupt else { return false }
            let stopNow = state.withLock { state -> Bool in
                guard !state.stopped, ContinuousClock.now - state.lastByte >= UploadHolders.idleAfter else { return false }
                state.stopped = true
                return true
            }
            if stopNow { interrupt() }
            return state.withLock { $0.stopped }
        }
    }

    private let holders = Mutex<[UploadID: Holder]>([:])

    /// Records `holder` as the writer of `id` (it holds the upload's lock now, and its idle time
    /// starts now: waiting for the lock is not silence).
    func register(_ holder: Holder, for id: UploadID) {
        holder.touch()
        holders.withLock { $0[id] = holder }
    }

    /// Forgets `holder` as the writer of `id`, unless another took its place already.
    func unregister(_ holder: Holder, for id: UploadID) {
        holders.withLock { holders in
            if holders[id] === holder { holders[id] = nil }
        }
    }

    /// The request of this process writing `id`, if one is.
    func holder(of id: UploadID) -> Holder? {
        holders.withLock { $0[id] }
    }
}

/// An upload request's bytes, each chunk recorded as it arrives on the request's ``UploadHolders/Holder``.
struct HeldUploadBytes<Base: AsyncSequence>: AsyncSequence {
    typealias Element = Base.Element

    let base: Base
    let holder: UploadHolders.Holder

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let holder: UploadHolders.Holder

        mutating func next() async throws -> Base.Element? {
            let chunk = try await base.next()
            holder.touch()
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), holder: holder)
    }
}
