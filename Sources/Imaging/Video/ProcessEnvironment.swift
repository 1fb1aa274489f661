#if canImport(Glibc)
import Glibc
#endif

/// This process's environment and file system, read without Foundation.
enum ProcessEnvironment {
    /// The value of environment variable `name`.
    static func value(of name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Whether `path` is a file this process may execute.
    static func isExecutable(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG && access(path, X_OK) == 0
    }
}
