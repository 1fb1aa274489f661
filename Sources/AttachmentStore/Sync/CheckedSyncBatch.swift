/// A page of a peer's feed checked change by change against the store's ``PeerInputLimits``
/// and record rules (``AttachmentStore/check(_:)``): the changes that may be applied, and why
/// each other entry may not.
///
/// Checking reads no catalog, so a sync round checks the next page on the task that fetched
/// it, while the store applies the page before; applying then only looks up and writes.
package struct CheckedSyncBatch: Sendable {
    /// The page, holding only the changes that passed (its ``SyncBatch/unreadable`` is empty:
    /// those entries are in ``refused``).
    package var batch: SyncBatch
    /// Why each refused entry was refused: first those that could not be read as a change,
    /// then those that broke a limit or a rule, each in page order.
    package var refused: [String]
    /// The latest clock reading among the changes that passed, which the store's clock is
    /// moved past before any of them is applied (one reading a page instead of one a change).
    var latestClock: ClockStamp?

    /// How many entries the peer sent, refused ones included.
    package var entryCount: Int { batch.changes.count + refused.count }
}
