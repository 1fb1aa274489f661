import ArgumentParser
import AttachmentStore
import Foundation

/// The documented exit codes, and how each error maps to one.
enum ExitStatus {
    /// Success.
    static let ok: Int32 = 0
    /// Usage or input error: bad arguments, unreadable input, unknown id.
    static let inputError: Int32 = 1
    /// Damage or internal error: `verify` found damage, disk full, catalog failure.
    static let damage: Int32 = 2

    /// Prints `error` as one line on standard error (help and version go to standard output)
    /// and returns the exit code it means.
    static func report(_ error: Swift.Error) -> Int32 {
        switch error {
        case let failure as CommandFailure:
            return failure.code
        case let storeError as AttachmentStore.Error:
            Console.error("attach: \(storeError)" + (ErrorHint.hint(for: storeError).map { "; \($0)" } ?? ""))
            return code(for: storeError)
        case let refusal as SafeFilename.Error:
            Console.error("attach: \(refusal); nothing was written. Give -o a file path to write it under a name of your choosing")
            return inputError
        case let problem as SettingsError:
            Console.error("attach: \(problem)")
            return inputError
        case let problem as StoreOwnerError:
            Console.error("attach: \(problem)")
            return inputError
        case is CancellationError:
            Console.error("attach: cancelled")
            return inputError
        default:
            let code = AttachCommand.exitCode(for: error)
            if code == .success {
                print(AttachCommand.fullMessage(for: error))
                return ok
            }
            if let refusal = error as? ValidationError {
                // A check made by a command itself, once its arguments parsed (or of a setting
                // from the environment): its own words say what to change. The parser's usage
                // would be the root command's, naming no subcommand, so it is left out.
                Console.error("Error: \(refusal.message)")
                return inputError
            }
            let message = AttachCommand.fullMessage(for: error)
            if code == .validationFailure {
                Console.error(message.isEmpty ? "attach: invalid usage" : message)
                return inputError
            }
            Console.error("attach: \(message.isEmpty ? String(describing: error) : message)")
            return damage
        }
    }

    /// The exit code for a store error.
    static func code(for error: AttachmentStore.Error) -> Int32 {
        switch error {
        case .storeNotFound, .notAStore, .noteNotFound, .attachmentNotFound, .notInTrash, .originalNotHeld, .ambiguousIdentifier,
             .sourceUnreadable, .sourceNotAFile, .invalidArgument, .notAvailableLocally,
             .notAnImage, .notAVideo, .notALivePhoto, .imageUnreadable, .imageTooLarge, .upload, .pushedBlob:
            return inputError
        case .blobStorageMismatch, .catalogFromNewerRelease:
            return inputError
        case .writeFailed, .blobMissing, .hashMismatch, .catalog, .catalogDamaged, .damagedCatalogRow, .catalogUnavailable, .objectStore:
            return damage
        }
    }
}

/// A failure whose message the command already printed; carries only the exit code.
struct CommandFailure: Swift.Error {
    let code: Int32
}
