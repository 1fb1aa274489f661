/// How much of `tmp/` the partial files of peer downloads (`tmp/fetch-<hash>.part`) may take.
///
/// A transfer that is cut keeps its partial for a resume; a peer that cuts every transfer
/// would otherwise leave one per blob, unverified and uncounted. A new download is admitted
/// only when every partial (the live ones counted at their blob's full size, the leftovers of
/// cut transfers at theirs) fits the caps, after removing the oldest leftovers to make room:
/// first those the same peer left, then anyone's. The overall byte cap is also held to the
/// storage budget's `maxLocalBytes` when one is set. One download larger than a cap is let
/// through when it is the only partial left, so every blob can still be fetched.
public struct PartialDownloadLimits: Sendable, Equatable {
    /// The most bytes of partial downloads in `tmp/`. Default 1 GiB.
    public var maxBytes: Int64 = 1 << 30
    /// The most partial download files in `tmp/`. Default 32.
    public var maxFiles = 32
    /// The most bytes of partial downloads one peer's transfers may hold. Default 256 MiB.
    public var maxBytesPerPeer: Int64 = 256 << 20
    /// The most partial download files one peer's transfers may hold. Default 8.
    public var maxFilesPerPeer = 8
    /// How long a leftover of a cut transfer (or any other unlocked file in `tmp/`) is kept
    /// before the running server removes it (``AttachmentStore/expireTemporaryFiles()``).
    /// Default 10 minutes.
    public var lifetime: Duration = .seconds(600)

    /// The default limits.
    public init() {}
}
