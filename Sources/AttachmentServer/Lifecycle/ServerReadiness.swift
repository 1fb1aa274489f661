import Synchronization

/// Whether the server still wants new work: false from the moment it is asked to stop, so
/// `/health/ready` answers 503 and a load balancer sends the next requests elsewhere while the
/// requests under way finish.
final class ServerReadiness: Sendable {
    // Atomic: read by every readiness request on any event loop, set once by the drain.
    private let draining = Atomic<Bool>(false)
    /// The store's readiness, checked at most once a second whatever the number of probes.
    let storeChecks = StoreReadinessCache()

    init() {}

    /// True once ``beginDraining()`` was called.
    var isDraining: Bool { draining.load(ordering: .acquiring) }

    /// Marks the server as going away; there is no way back.
    func beginDraining() { draining.store(true, ordering: .releasing) }
}
