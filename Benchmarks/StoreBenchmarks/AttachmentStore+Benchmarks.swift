import AttachmentStore

extension AttachmentStore {
    /// A new store in `scratch/store` that makes thumbnails only when asked (no prefetch after an
    /// import), so that nothing runs in the background of a measurement.
    static func makeForBenchmark(in scratch: ScratchDirectory) async throws -> AttachmentStore {
        var configuration = Configuration()
        configuration.thumbnails.generateAfterImport = false
        return try await create(at: scratch.path("store"), configuration: configuration)
    }
}
