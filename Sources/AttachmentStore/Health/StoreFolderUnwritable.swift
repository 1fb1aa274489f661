import Glibc

/// The store folder's staging area cannot be written (a full or read-only disk, lost permissions).
struct StoreFolderUnwritable: Swift.Error, CustomStringConvertible {
    let path: String
    let code: Int32
    var description: String { "cannot write \(path): \(String(cString: strerror(code)))" }
}
