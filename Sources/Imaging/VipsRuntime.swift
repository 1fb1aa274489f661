import CVips

/// The process-wide libvips runtime, started once on first use.
///
/// Starting it blocks untrusted loaders (only the common, fuzzed formats are decoded)
/// and turns libvips' operation cache off: the store caches derived images itself,
/// and a hidden cache of decoded pixels would make memory use unpredictable.
enum VipsRuntime {
    /// The outcome of the one-time start; later calls reuse it.
    private static let started: Result<Void, ImagingError> = {
        guard cvips_init("attach") == 0 else {
            return .failure(.libraryUnavailable(lastError()))
        }
        cvips_silence_warnings()
        vips_cache_set_max(0)
        vips_cache_set_max_mem(0)
        vips_cache_set_max_files(0)
        vips_block_untrusted_set(1)
        vips_concurrency_set(1)
        return .success(())
    }()

    /// Sets how many threads one libvips operation may use. The store runs several operations
    /// at once (one per core by default), each with one thread, which keeps every core busy
    /// without oversubscribing them.
    static func setThreadsPerOperation(_ count: Int) {
        vips_concurrency_set(Int32(max(1, count)))
    }

    /// Starts libvips if needed.
    /// - Throws: ``ImagingError/libraryUnavailable(_:)`` when libvips cannot start.
    static func start() throws(ImagingError) {
        try started.get()
    }

    /// Takes and clears libvips' error buffer for the calling thread's last failure.
    static func lastError() -> String {
        let message = vips_error_buffer().map { String(cString: $0) } ?? ""
        vips_error_clear()
        let trimmed = message.split(whereSeparator: \.isNewline).map(String.init)
        return trimmed.isEmpty ? "unknown libvips error" : trimmed.joined(separator: "; ")
    }
}
