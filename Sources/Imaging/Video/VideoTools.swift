import HelperProcess

/// Where ffmpeg and ffprobe are, what they may read and what they may use.
///
/// Both run as ``LimitedChildProcess``es. Besides the process limits, every run names what
/// the program may touch: the `file` protocol only (no network, no other file a crafted
/// playlist or reference could name), the MP4/QuickTime demuxer only, and the video decoders
/// a phone or camera writes.
public struct VideoTools: Sendable, Equatable {
    /// ffprobe's path. Default: the first `ffprobe` on `PATH`, else `/usr/bin/ffprobe`.
    public var ffprobePath: String
    /// ffmpeg's path. Default: the first `ffmpeg` on `PATH`, else `/usr/bin/ffmpeg`.
    public var ffmpegPath: String
    /// Limits of one probe: 10 s, 10 s of CPU, 1 GiB of address space, 1 MiB of answer.
    public var probeLimits: ChildProcessLimits
    /// Limits of one poster frame: 30 s, 30 s of CPU, 2 GiB of address space, 64 MiB of frame.
    public var posterLimits: ChildProcessLimits

    /// The demuxers a video is read with: MP4 and QuickTime (one demuxer in ffmpeg).
    public static let demuxers = "mov,mp4,m4a,3gp,3g2,mj2"
    /// The decoders a video is read with: the pictures and sounds phones and cameras write
    /// (ffprobe opens a decoder for every stream; a poster decodes only the picture).
    public static let decoders = "h264,hevc,mpeg4,vp8,vp9,av1,libdav1d,mjpeg,prores,"
        + "aac,aac_fixed,alac,mp3float,mp3,opus,pcm_s16le,pcm_s16be,pcm_s24le"

    /// Tools at the given paths with the given limits (defaults as documented on each property).
    public init(ffprobePath: String = VideoTools.find("ffprobe"), ffmpegPath: String = VideoTools.find("ffmpeg"),
                probeLimits: ChildProcessLimits = ChildProcessLimits(wallClock: .seconds(10), cpuSeconds: 10, addressSpaceBytes: 1 << 30,
                                                                     maximumOutputBytes: 1 << 20),
                posterLimits: ChildProcessLimits = ChildProcessLimits(wallClock: .seconds(30), cpuSeconds: 30, addressSpaceBytes: 2 << 30,
                                                                      maximumOutputBytes: 64 << 20)) {
        self.ffprobePath = ffprobePath
        self.ffmpegPath = ffmpegPath
        self.probeLimits = probeLimits
        self.posterLimits = posterLimits
    }

    /// The arguments every run starts with: quiet, and the allow-lists (ffmpeg adds `-nostdin`).
    /// The restrictions and the input of a run reading the video at `path`, which starts
    /// `offset` bytes in (an Android motion photo's clip after its picture; 0 for a video file).
    /// A clip inside a file is read through ffmpeg's `subfile` protocol, which then joins `file`
    /// on the allow-list: the demuxer sees only the clip's bytes, its offsets counted from them.
    static func input(_ path: String, startingAt offset: Int64) -> (restrictions: [String], input: [String]) {
        guard offset > 0 else { return (restrictions, ["-i", path]) }
        var restricted = restrictions
        if let at = restricted.firstIndex(of: "-protocol_whitelist") { restricted[at + 1] = "file,subfile" }
        return (restricted, ["-i", "subfile,,start,\(offset),end,0,,:file:\(path)"])
    }

    static let restrictions = ["-hide_banner", "-loglevel", "error",
                               "-protocol_whitelist", "file", "-format_whitelist", demuxers,
                               "-codec_whitelist", decoders]

    /// The first executable `name` in this process's `PATH`, else `/usr/bin/name`.
    public static func find(_ name: String) -> String {
        let path = ProcessEnvironment.value(of: "PATH") ?? ""
        for folder in path.split(separator: ":") where folder.hasPrefix("/") {
            let candidate = "\(folder)/\(name)"
            if ProcessEnvironment.isExecutable(candidate) { return candidate }
        }
        return "/usr/bin/\(name)"
    }
}
