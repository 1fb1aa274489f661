import AttachmentStore

/// The store's last readiness answer, shared by every `/health/ready` request for `maxAge`, and
/// one check at a time: anyone may ask that route, and a flood of probes must not become a flood
/// of catalog queries and object-store requests (nor of checks left waiting on a part that hangs).
actor StoreReadinessCache {
    private let maxAge: Duration
    private var last: (at: ContinuousClock.Instant, readiness: StoreReadiness)?
    private var running: Task<StoreReadiness, Never>?

    init(maxAge: Duration = .seconds(1)) { self.maxAge = maxAge }

    /// The answer of `store.checkReadiness()`: the last one while younger than `maxAge`, else the
    /// check under way, else a new check.
    func readiness(of store: AttachmentStore) async -> StoreReadiness {
        if let last, ContinuousClock.now - last.at < maxAge { return last.readiness }
        if let running { return await running.value }
        let check = Task { await store.checkReadiness() }
        running = check
        let readiness = await check.value
        last = (ContinuousClock.now, readiness)
        running = nil
        return readiness
    }
}
