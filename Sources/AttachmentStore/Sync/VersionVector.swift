import Foundation

/// What versions of a note a version of it has seen: for each peer that edited the note, the
/// clock stamp of that peer's latest edit included. Comparing two says whether one version
/// includes the other (a fast-forward) or whether they were made concurrently, each without
/// the other's edit (a merge) — what a single clock stamp cannot tell.
///
/// On the wire and in the catalog it is a JSON object of `peer id: clock stamp`, keys sorted.
public struct VersionVector: Sendable, Hashable, Codable {
    /// The latest edit of each peer included, by peer id.
    public internal(set) var stamps: [String: ClockStamp]

    /// A vector of `stamps` (each under its peer id).
    public init(_ stamps: [ClockStamp] = []) {
        self.stamps = [:]
        for stamp in stamps { self = advanced(by: stamp) }
    }

    /// The most peers a note's vector may name; a peer's vector with more is refused.
    public static let maximumPeers = 256

    /// Whether no edit is included (a record older than version vectors).
    public var isEmpty: Bool { stamps.isEmpty }

    /// This vector with `stamp` as the latest edit of its peer (never moving a peer back).
    public func advanced(by stamp: ClockStamp) -> VersionVector {
        guard let peer = stamp.peer else { return self }
        var next = self
        if let known = next.stamps[peer], known >= stamp { return next }
        next.stamps[peer] = stamp
        return next
    }

    /// Every edit either includes: the later stamp of each peer.
    public func joined(with other: VersionVector) -> VersionVector {
        var next = self
        for (peer, stamp) in other.stamps where (next.stamps[peer].map { $0 < stamp } ?? true) { next.stamps[peer] = stamp }
        return next
    }

    /// The edits both include: the earlier stamp of each peer both name.
    public func met(with other: VersionVector) -> VersionVector {
        var common = VersionVector()
        for (peer, stamp) in stamps {
            if let theirs = other.stamps[peer] { common.stamps[peer] = min(stamp, theirs) }
        }
        return common
    }

    /// How two versions of a note relate.
    public enum Relation: Sendable, Equatable {
        /// They include the same edits.
        case same
        /// This one includes every edit of the other, and more: it replaces it.
        case newer
        /// The other includes every edit of this one, and more.
        case older
        /// Each includes an edit the other lacks: made concurrently, to be merged.
        case concurrent
    }

    /// How this version relates to `other`.
    public func relation(to other: VersionVector) -> Relation {
        var (ahead, behind) = (false, false)
        for peer in Set(stamps.keys).union(other.stamps.keys) {
            switch (stamps[peer], other.stamps[peer]) {
            case let (mine?, theirs?) where mine > theirs: ahead = true
            case let (mine?, theirs?) where mine < theirs: behind = true
            case (_?, nil): ahead = true
            case (nil, _?): behind = true
            default: break
            }
        }
        switch (ahead, behind) {
        case (false, false): return .same
        case (true, false): return .newer
        case (false, true): return .older
        case (true, true): return .concurrent
        }
    }

    /// Reads the object of `peer: stamp`.
    public init(from decoder: any Decoder) throws {
        stamps = try decoder.singleValueContainer().decode([String: ClockStamp].self)
    }

    /// Writes the object of `peer: stamp`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stamps)
    }
}

extension ClockStamp {
    /// The peer that made the reading, when it is well formed.
    var peer: String? {
        let fields = rawValue.split(separator: "-", maxSplits: 2, omittingEmptySubsequences: false)
        return fields.count == 3 && !fields[2].isEmpty ? String(fields[2]) : nil
    }
}
