import Synchronization

/// How many uploads the server receives at once: each takes a slot, and none is left for
/// one more beyond the limit (it is answered 503 with `Retry-After`, never queued).
struct UploadSlots: Sendable {
    /// A taken slot; ``finish()`` gives it back, once however often it is called.
    final class Slot: Sendable {
        private let counter: BoundedCounter
        private let finished = Atomic<Bool>(false)

        fileprivate init(counter: BoundedCounter) { self.counter = counter }

        /// Gives the slot back.
        func finish() {
            if !finished.exchange(true, ordering: .relaxed) { counter.leave() }
        }
    }

    private let counter: BoundedCounter

    /// Slots for at most `limit` uploads at once.
    init(limit: Int) { counter = BoundedCounter(limit: limit) }

    /// A slot, or `nil` when all are taken.
    func take() -> Slot? {
        counter.enter() ? Slot(counter: counter) : nil
    }
}
