import HelperProcess

/// Where poppler's `pdfinfo` and `pdftoppm` are and what they may use. Both run as
/// ``LimitedChildProcess``es: a PDF is read only by them, never inside the server.
public struct DocumentTools: Sendable, Equatable {
    /// `pdfinfo`'s path. Default: the first on `PATH`, else `/usr/bin/pdfinfo`.
    public var pdfinfoPath: String
    /// `pdftoppm`'s path. Default: the first on `PATH`, else `/usr/bin/pdftoppm`.
    public var pdftoppmPath: String
    /// Limits of reading a PDF's page count and page size: 10 s, 10 s of CPU, 1 GiB, 64 KiB of answer.
    public var probeLimits: ChildProcessLimits
    /// Limits of drawing its first page: 30 s, 30 s of CPU, 2 GiB, 64 MiB of image.
    public var renderLimits: ChildProcessLimits

    /// Tools at the given paths with the given limits (defaults as documented on each property).
    public init(pdfinfoPath: String = VideoTools.find("pdfinfo"), pdftoppmPath: String = VideoTools.find("pdftoppm"),
                probeLimits: ChildProcessLimits = ChildProcessLimits(wallClock: .seconds(10), cpuSeconds: 10, addressSpaceBytes: 1 << 30,
                                                                     maximumOutputBytes: 64 << 10),
                renderLimits: ChildProcessLimits = ChildProcessLimits(wallClock: .seconds(30), cpuSeconds: 30, addressSpaceBytes: 2 << 30,
                                                                      maximumOutputBytes: 64 << 20)) {
        self.pdfinfoPath = pdfinfoPath
        self.pdftoppmPath = pdftoppmPath
        self.probeLimits = probeLimits
        self.renderLimits = renderLimits
    }
}
