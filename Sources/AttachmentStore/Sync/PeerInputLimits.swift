/// The bounds every change and blob from a peer must keep before it touches the catalog, a
/// page or the disk. A peer is input like any upload: these are its upload limits.
///
/// What a title, a body and a file name may hold is not configurable here: it is
/// ``RecordRules``, the same rule the store's own writes keep, so that a record this store
/// accepts is never refused by a peer.
public struct PeerInputLimits: Sendable, Equatable {
    /// The largest blob a peer's record may announce, and the most bytes a fetch accepts.
    /// Default 4 GiB; `attach serve` uses its upload limit.
    public var maxBlobBytes: Int64 = 4 << 30
    /// How far ahead of this machine's wall clock a peer's clock stamp or date may be. A
    /// change stamped later is refused, never adopted, so one peer's bad clock cannot drag
    /// every later local edit into the future. Default 5 minutes.
    public var maxClockSkew: Duration = .seconds(300)
    /// The most metadata entries of an attachment. Default 64.
    public var maxMetadataEntries = 64
    /// The most UTF-8 bytes of all metadata keys and values of an attachment together. Default 16 KiB.
    public var maxMetadataBytes = 16 << 10
    /// The highest position of an attachment in its note. Default 1,000,000.
    public var maxPosition = 1_000_000

    /// The default limits.
    public init() {}
}
