import AsyncCoordination

extension AttachmentStore {
    /// Asks each part the store depends on whether it can take work: the catalog answers a
    /// query, the store folder's `tmp/` can be written (every ingest stages there), and the
    /// object store, when there is one, answers a lookup. Each part has `limit` to answer; one
    /// that hangs counts as down. Never throws: a failure is a ``StoreReadiness/Check`` with a
    /// problem.
    public func checkReadiness(within limit: Duration = .seconds(3)) async -> StoreReadiness {
        async let catalogProblem = Self.problem(of: "the catalog", within: limit) { [catalog] in
            try await catalog.read { db in try Catalog.answer(in: db) }
        }
        async let filesProblem = Self.problem(of: "the store folder", within: limit) { [layout] in
            try await BlockingPool.run {
                if let code = POSIXFile.writeProblem(layout.temporaryPath) { throw StoreFolderUnwritable(path: layout.temporaryPath, code: code) }
            }
        }
        var checks = [
            StoreReadiness.Check(part: "catalog", problem: await catalogProblem),
            StoreReadiness.Check(part: "files", problem: await filesProblem),
        ]
        if let objectStore = configuration.objectStore {
            let problem = await Self.problem(of: "the object store", within: limit) {
                _ = try await objectStore.size(of: Self.readinessProbe)
            }
            checks.append(StoreReadiness.Check(part: "object-store", problem: problem))
        }
        return StoreReadiness(checks: checks)
    }

    /// A hash no content has in practice: looking it up asks the object store a question whose
    /// answer ("no such object") proves it is up, without reading any real original.
    static let readinessProbe = BlobHash(rawValue: String(repeating: "0", count: 64))!

    private static func problem(of part: String, within limit: Duration,
                                _ check: @escaping @Sendable () async throws -> Void) async -> String? {
        do {
            let answered: Void? = try await Deadline.run(within: limit, check)
            return answered == nil ? "\(part) did not answer within \(limit)" : nil
        } catch {
            return "\(part): \(error)"
        }
    }
}
