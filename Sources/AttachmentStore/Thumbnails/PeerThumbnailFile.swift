import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A peer's thumbnail written to a locked file of its own in `tmp/`, so the image pipeline can
/// probe and decode it from a path. It is removed before it is unlocked, so no `gc` ever finds
/// it unlocked and takes it for a dead file. Its methods block.
struct PeerThumbnailFile: Sendable {
    /// Where the bytes are.
    let path: String
    private let descriptor: Int32

    /// Writes `data` to a new locked file in `directory`.
    /// - Throws: ``AttachmentStore/Error/writeFailed(path:cause:)`` naming the file when it
    ///   cannot be created or written (nothing is left behind).
    static func write(_ data: Data, in directory: String) throws(AttachmentStore.Error) -> PeerThumbnailFile {
        let name = "peer-thumbnail-\(UUID().uuidString).part"
        let path = directory + "/" + name
        let fd: Int32
        do throws(SystemError) {
            fd = try POSIXFile.createLocked(named: name, in: directory)
        } catch {
            throw .writeFailed(path: path, cause: .system(error))
        }
        let file = PeerThumbnailFile(path: path, descriptor: fd)
        let failure = data.withUnsafeBytes { bytes -> SystemError? in
            do throws(SystemError) {
                try POSIXFile.writeAll(fd, bytes)
                return nil
            } catch {
                return error
            }
        }
        if let failure {
            file.remove()
            throw .writeFailed(path: path, cause: .system(failure))
        }
        return file
    }

    /// Removes the file, then lets go of it (and of its lock).
    func remove() {
        unlink(path)
        close(descriptor)
    }
}
