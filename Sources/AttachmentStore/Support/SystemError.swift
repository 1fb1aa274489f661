import Glibc
import SystemPackage

/// A failed system call: which one, and the operating system's error number.
///
/// Store errors that come from the file system carry one as their cause
/// (``AttachmentStore/Error/Cause/system(_:)``), so a program can tell a full disk from a
/// permission problem without reading the message.
public struct SystemError: Swift.Error, Sendable, Hashable, CustomStringConvertible {
    /// The POSIX error number.
    public let code: Int32
    /// The call that failed (`open`, `write`, `rename` ...).
    public let call: String

    /// A failure of `call` with `code`; by default the current `errno`.
    public init(_ call: String, code: Int32 = Glibc.errno) {
        self.call = call
        self.code = code
    }

    /// The error number as swift-system's `Errno`, for comparing against named values
    /// (`.noSpace`, `.permissionDenied`).
    public var errno: Errno { Errno(rawValue: code) }

    /// `strerror` text, for example "No space left on device".
    public var reason: String { errno.description }

    /// The disk or the user's quota is full, or the file grew past the file system's limit.
    public var isOutOfSpace: Bool { [.noSpace, .diskQuotaExceeded, .fileTooLarge].contains(errno) }

    /// The user running the program may not do this here (permissions, a read-only mount).
    public var isPermissionDenied: Bool { [.permissionDenied, .notPermitted, .readOnlyFileSystem].contains(errno) }

    /// `call: reason`, for example "rename: No space left on device".
    public var description: String { "\(call): \(reason)" }
}
