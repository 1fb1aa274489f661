#if canImport(Glibc)
import Glibc
#endif
import HelperProcess

/// What stopped an image from being read, as ``ImagingError/unreadable(path:cause:)`` carries it:
/// libvips's own words about the data, or the system refusing the file.
public enum ImageReadFailure: Sendable, Equatable, CustomStringConvertible {
    /// libvips refused the data (truncated, corrupt, a loader's complaint), in its own words on
    /// one line. libvips gives nothing more structured than this text.
    case libvips(String)
    /// The system refused `call` on the file with the error number `errno`.
    case system(call: String, errno: Int32)
    /// The helper program that reads this kind of file (ffprobe, ffmpeg) gave no result: it is
    /// missing, refused the data, or ran out of time or memory.
    case helper(ChildProcessError)
    /// The helper program's answer about the file made no sense (an impossible size, no video
    /// stream), in a sentence.
    case implausible(String)

    /// libvips's words, or the call and the system's words for the error number.
    public var description: String {
        switch self {
        case .libvips(let message): message
        case .system(let call, let errno): "\(call) failed: \(String(cString: strerror(errno)))"
        case .helper(let failure): failure.description
        case .implausible(let reason): reason
        }
    }
}
