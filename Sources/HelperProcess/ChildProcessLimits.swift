/// What a helper program (ffmpeg, ffprobe, pdftoppm) may use while it reads a file someone
/// else made. Every limit is set in the child before the program starts; the wall clock is
/// kept by the parent, which kills the child's whole process group when it runs out.
public struct ChildProcessLimits: Sendable, Equatable {
    /// How long the program may run, start to exit. Default 30 seconds.
    public var wallClock: Duration
    /// CPU seconds the program may use (`RLIMIT_CPU`); the kernel stops it after that. Default 60.
    public var cpuSeconds: Int
    /// Address space the program may map (`RLIMIT_AS`), libraries and thread stacks included.
    /// Default 3 GiB.
    public var addressSpaceBytes: Int64
    /// The largest file the program may write (`RLIMIT_FSIZE`). Default 0: it writes no file
    /// at all; its output comes through its standard output.
    public var fileSizeBytes: Int64
    /// Descriptors the program may hold open (`RLIMIT_NOFILE`). Default 64.
    public var openFiles: Int
    /// The most bytes read from the program's standard output; more stops it. Default 64 MiB.
    public var maximumOutputBytes: Int
    /// Whether the program gets a network namespace of its own, with no way out. Default true.
    /// When the kernel refuses one (no user namespaces), the program runs without it and
    /// ``ChildProcessOutput/networkIsolated`` says so; the caller's own allow-lists remain.
    public var isolatesNetwork: Bool

    /// Limits with the given values (defaults as documented on each property).
    public init(wallClock: Duration = .seconds(30), cpuSeconds: Int = 60, addressSpaceBytes: Int64 = 3 << 30,
                fileSizeBytes: Int64 = 0, openFiles: Int = 64, maximumOutputBytes: Int = 64 << 20,
                isolatesNetwork: Bool = true) {
        self.wallClock = wallClock
        self.cpuSeconds = cpuSeconds
        self.addressSpaceBytes = addressSpaceBytes
        self.fileSizeBytes = fileSizeBytes
        self.openFiles = openFiles
        self.maximumOutputBytes = maximumOutputBytes
        self.isolatesNetwork = isolatesNetwork
    }
}
