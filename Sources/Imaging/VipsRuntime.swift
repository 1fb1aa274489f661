import CVips

/// The process-wide libvips runtime, loaded and started once, on first use.
///
/// libvips is not linked into the program: the first image operation loads it (`dlopen`
/// in CVips), so a command that touches no image never maps it or the hundred libraries it
/// brings. Starting it loads one of libvips' loadable modules, the HEIF one (HEIC and AVIF),
/// and none of the others (ImageMagick, OpenSlide, Poppler, JPEG XL: code and memory no
/// accepted image needs), blocks untrusted loaders (only the common, fuzzed formats are
/// decoded), runs each operation on one thread (the store runs one operation per core), and
/// turns libvips' operation cache off: the store caches derived images itself, and a hidden
/// cache of decoded pixels would make memory use unpredictable.
enum VipsRuntime {
    /// The outcome of the one-time start; later calls reuse it.
    private static let started: Result<Void, ImagingError> = {
        var message = [CChar](repeating: 0, count: 512)
        guard cvips_start("attach", &message, message.count) == 0 else {
            let reason = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            return .failure(.libraryUnavailable(reason))
        }
        return .success(())
    }()

    /// Loads and starts libvips if needed. Every other use of CVips comes after this.
    /// - Throws: ``ImagingError/libraryUnavailable(_:)`` when libvips cannot be loaded or started.
    static func start() throws(ImagingError) {
        try started.get()
    }

    /// Takes and clears libvips' error buffer for the calling thread's last failure.
    static func lastError() -> String {
        let message = String(cString: cvips_last_error())
        cvips_clear_error()
        let trimmed = message.split(whereSeparator: \.isNewline).map(String.init)
        return trimmed.isEmpty ? "unknown libvips error" : trimmed.joined(separator: "; ")
    }
}
