#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call: which one, on what, and `strerror`'s words for `errno`.
struct SystemError: Swift.Error, Sendable, CustomStringConvertible {
    /// The POSIX error number.
    let code: Int32
    /// The call that failed (`open`, `write`, `rename` ...).
    let call: String

    /// Captures the current `errno`.
    init(_ call: String, code: Int32 = errno) {
        self.call = call
        self.code = code
    }

    /// `strerror` text, for example "No space left on device".
    var reason: String { String(cString: strerror(code)) }

    var description: String { "\(call): \(reason)" }
}
