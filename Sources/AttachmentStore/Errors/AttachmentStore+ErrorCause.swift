import CatalogSQL
import Foundation

extension AttachmentStore.Error {
    /// Why reading or writing a file failed: the system's error, the catalog database's, or a
    /// condition the store found itself. A program decides what to do from this (the `attach`
    /// command's hints, the server's status codes), never from the message.
    public enum Cause: Sendable, Equatable, CustomStringConvertible {
        /// A system call failed; its error number says why.
        case system(SystemError)
        /// The catalog's database failed while writing (its disk is full).
        case database(SQLDatabaseError)
        /// The store found the problem itself: a staged copy that vanished, another download of
        /// the same blob under way.
        case condition(String)

        /// The disk (or quota) under the file or the catalog is full: freeing space helps.
        public var isOutOfSpace: Bool {
            switch self {
            case .system(let error): error.isOutOfSpace
            case .database(let error): error.kind == .full
            case .condition: false
            }
        }

        /// The user running the program may not write here: changing owner or mode helps.
        public var isPermissionDenied: Bool {
            if case .system(let error) = self { return error.isPermissionDenied }
            return false
        }

        /// The system's words for the error ("No space left on device"), or the condition.
        public var description: String {
            switch self {
            case .system(let error): error.reason
            case .database(let error): error.kind == .full ? "No space left on device" : error.message
            case .condition(let sentence): sentence
            }
        }
    }
}

extension AttachmentStore.Error.Cause {
    /// The cause a Foundation file operation's error is: its POSIX error number, as a failure of
    /// `call`, when it has one (`FileManager` and `Data.write` wrap `errno` in an `NSError`),
    /// else its description.
    public init(_ error: any Swift.Error, call: String = "write") {
        if let error = error as? SystemError {
            self = .system(error)
            return
        }
        let nsError = error as NSError
        let candidates = [nsError] + [(nsError.userInfo[NSUnderlyingErrorKey] as? any Swift.Error).map { $0 as NSError }].compactMap { $0 }
        if let posix = candidates.last(where: { $0.domain == NSPOSIXErrorDomain }) {
            self = .system(SystemError(call, code: Int32(posix.code)))
        } else {
            self = .condition(nsError.localizedDescription)
        }
    }
}
