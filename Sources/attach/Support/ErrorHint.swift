import AttachmentStore

/// What a user of `attach` can do about a store error: the command to run or the option to
/// pass. The library's messages say what went wrong; this is the one place that adds the
/// command-line advice.
enum ErrorHint {
    /// The advice for `error`, if the command line has any.
    static func hint(for error: AttachmentStore.Error) -> String? {
        switch error {
        case .storeNotFound(let path): "create one with `attach init --store \(path)`"
        case .noteNotFound: "`attach note list` shows the notes"
        case .attachmentNotFound: "`attach list` shows the attachments"
        case .blobMissing, .hashMismatch, .catalogDamaged: "run `attach verify`"
        case .blobStorageMismatch: "pass --blobs for the store's own location (or set ATTACH_BLOBS)"
        case .notAvailableLocally: "`attach fetch` brings them from a peer"
        default: nil
        }
    }
}
