/// Whether a store can take work now: each part it depends on, and what went wrong with it.
///
/// Made by ``AttachmentStore/checkReadiness(within:)``. The problems are for the operator's
/// log: they may name a database host or a bucket, so a public answer should not repeat them.
public struct StoreReadiness: Sendable, Equatable {
    /// One part of the store and its answer.
    public struct Check: Sendable, Equatable {
        /// `catalog`, `files` or `object-store`.
        public let part: String
        /// Why the part cannot take work, or `nil` when it answered.
        public let problem: String?

        /// A check of `part` with its `problem` (`nil`: it answered).
        public init(part: String, problem: String?) {
            self.part = part
            self.problem = problem
        }
    }

    /// Every part checked, in a fixed order.
    public let checks: [Check]

    /// True when every part answered.
    public var isReady: Bool { checks.allSatisfy { $0.problem == nil } }

    /// The parts that did not answer, with their problems.
    public var problems: [Check] { checks.filter { $0.problem != nil } }
}
