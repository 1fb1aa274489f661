import AttachmentStore
import AttachmentSync

/// What a user of `attach` can do about a store error: the command to run or the option to
/// pass. The library's messages say what went wrong; this is the one place that adds the
/// command-line advice, chosen from the error and the cause it carries.
enum ErrorHint {
    /// The advice for `error`, if the command line has any.
    static func hint(for error: AttachmentStore.Error) -> String? {
        switch error {
        case .storeNotFound(let path): "create one with `attach init --store \(path)`"
        case .noteNotFound: "`attach note list` shows the notes"
        case .attachmentNotFound: "`attach list` shows the attachments"
        case .notInTrash: "`attach trash list` shows what is in the trash"
        case .blobMissing, .hashMismatch, .catalogDamaged, .damagedCatalogRow: "run `attach verify`"
        case .blobStorageMismatch: "pass --blobs for the store's own location (or set ATTACH_BLOBS)"
        case .notAvailableLocally: "`attach fetch` brings them from a peer"
        case .catalogUnavailable: "check that the PostgreSQL server --catalog names is running and reachable"
        case .writeFailed(let path, let cause): hint(for: cause, at: path, access: "write")
        case .sourceUnreadable(let path, let cause): hint(for: cause, at: path, access: "read")
        default: nil
        }
    }

    /// The advice for a failure of a peer, if the command line has any: the options that give a
    /// peer its token or the authority that signed its certificate.
    static func hint(for error: SyncError) -> String? {
        switch error {
        case .peerRefused(_, 401, _): "give the peer its own token with --token, --peer-token-file URL=FILE or --peers-file FILE"
        case .peerCertificateUntrusted: "give the CA that signed its certificate with --peer-ca FILE"
        case .storeFailed(_, let cause): hint(for: cause)
        case .blobUnavailable: error.peerFailures.lazy.compactMap { hint(for: $0) }.first
        default: nil
        }
    }

    /// The advice for a file failure's cause at `path`, which had to be opened to `access` it.
    private static func hint(for cause: AttachmentStore.Error.Cause, at path: String, access: String) -> String? {
        if cause.isOutOfSpace {
            return "free space on that disk: `attach gc` removes originals no note uses, and --max-local-bytes sets a budget"
        }
        if cause.isPermissionDenied {
            return "the user running attach must be able to \(access) \(path) (check its owner, mode and mount)"
        }
        return nil
    }
}
