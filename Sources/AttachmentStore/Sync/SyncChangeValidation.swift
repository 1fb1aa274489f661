import Foundation
import Imaging

/// Checks one change from a peer against ``PeerInputLimits``, ``RecordRules`` (what a title,
/// body and file name may hold: the rule the store's own writes keep) and the shape of this
/// store's own records, before anything of it is applied.
///
/// A change that fails is never applied and never moves the clock; the batch it came in
/// goes on without it (``SyncApplyReport/invalid``).
package struct SyncChangeValidation {
    let limits: PeerInputLimits
    /// This machine's wall clock, in milliseconds since 1970.
    let nowMilliseconds: Int64

    /// The longest playing time a peer may claim for a video: ten years, in milliseconds.
    static let longestVideoMilliseconds = 10 * 365 * 86_400 * 1000

    init(limits: PeerInputLimits, now: Date = Date()) {
        self.limits = limits
        self.nowMilliseconds = Int64(now.timeIntervalSince1970 * 1000)
    }

    /// The latest instant a peer may name, in milliseconds since 1970.
    var latestAllowed: Int64 {
        let skew = limits.maxClockSkew.components
        return nowMilliseconds + skew.seconds * 1000 + skew.attoseconds / 1_000_000_000_000_000
    }

    /// Why `change` may not be applied, or `nil` when it may: the first check it fails, in the
    /// order written (each later check runs only when the earlier ones pass).
    func problem(with change: SyncChange) -> String? {
        switch change {
        case .note(let change): problem(withNote: change)
        case .attachment(let token): problem(withAttachment: token)
        case .tombstone(let tombstone): problem(withTombstone: tombstone)
        }
    }

    private func problem(withNote change: SyncChange.NoteState) -> String? {
        let note = change.note
        let record: String? = Self.id(note.id.rawValue, "note id")
            ?? RecordRules.problem(title: note.title)
            ?? RecordRules.problem(body: note.body)
        let times: String? = date(note.createdAt, "createdAt")
            ?? date(note.updatedAt, "updatedAt")
            ?? change.trashedAt.flatMap { date($0, "trashedAt") }
        return record ?? times ?? clock(change.clock) ?? change.versions.flatMap { versions($0, clock: change.clock) }
    }

    private func problem(withAttachment token: SyncChange.AttachmentToken) -> String? {
        let attachment = token.attachment
        let record: String? = Self.id(attachment.id.rawValue, "attachment id")
            ?? Self.id(attachment.noteID.rawValue, "note id")
            ?? position(attachment.position)
            ?? byteCount(attachment.byteCount)
        let description: String? = Self.mediaType(attachment.mediaType)
            ?? Self.filename(attachment.filename)
            ?? image(attachment.image)
            ?? metadata(attachment.metadata)
        let parts: String? = attachment.motion.flatMap(motion)
            ?? attachment.contentIdentifier.flatMap(Self.contentIdentifier)
            ?? attachment.image?.embeddedVideoOffset.flatMap { embeddedVideo(at: $0, in: attachment.byteCount) }
        let times: String? = date(attachment.createdAt, "createdAt")
            ?? date(attachment.updatedAt, "updatedAt")
            ?? token.trashedAt.flatMap { date($0, "trashedAt") }
        return record ?? description ?? parts ?? times ?? clock(token.clock)
    }

    private func problem(withTombstone tombstone: SyncChange.Tombstone) -> String? {
        let kind: String? = ["note", "attachment"].contains(tombstone.entity) ? nil : "a tombstone of unknown kind \(PeerText.quoted(tombstone.entity))"
        return kind ?? Self.id(tombstone.id, "\(tombstone.entity) id") ?? clock(tombstone.clock)
    }

    // MARK: - Fields

    /// A canonical lowercase UUID: 8-4-4-4-12 hexadecimal digits.
    static func id(_ text: String, _ name: String) -> String? {
        let utf8 = text.utf8
        let isUUID = utf8.count == 36 && utf8.enumerated().allSatisfy { index, byte in
            index == 8 || index == 13 || index == 18 || index == 23 ? byte == UInt8(ascii: "-") : (48...57).contains(byte) || (97...102).contains(byte)
        }
        return isUUID ? nil : "\(name) \(PeerText.quoted(text)) is not a lowercase UUID"
    }

    /// The characters besides letters and digits a media type's parts may hold.
    private static let tokenSymbols = Set("!#$&-^_.+".utf8)

    /// `type/subtype` of token characters, at most 127 bytes.
    static func mediaType(_ text: String) -> String? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        let token = { (part: Substring) in
            !part.isEmpty && part.utf8.allSatisfy { byte in
                (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte) || tokenSymbols.contains(byte)
            }
        }
        guard text.utf8.count <= 127, parts.count == 2, token(parts[0]), token(parts[1]) else {
            return "media type \(PeerText.quoted(text)) is not of the form type/subtype"
        }
        return nil
    }

    func text(_ value: String, _ name: String, max: Int, allowNewlines: Bool) -> String? {
        guard value.utf8.count <= max else { return "\(name) is \(value.utf8.count) bytes, more than \(max)" }
        if value.unicodeScalars.contains(where: { ($0.value < 0x20 || $0.value == 0x7F) && !($0 == "\t" || allowNewlines && ($0 == "\n" || $0 == "\r")) }) {
            return "\(name) contains control characters"
        }
        return nil
    }

    /// Why a peer's file name breaks ``RecordRules``, taken as a name given (its last `/` part,
    /// which is what ``AttachmentStore`` records), or `nil`.
    static func filename(_ name: String) -> String? {
        do {
            _ = try RecordRules.filename(given: name)
            return nil
        } catch {
            if case .invalidArgument(let reason) = error { return reason }
            return "\(error)"
        }
    }

    func date(_ date: Date, _ name: String) -> String? {
        let milliseconds = date.timeIntervalSince1970 * 1000
        guard milliseconds.isFinite, milliseconds >= 0, milliseconds <= Double(latestAllowed) else {
            return "\(name) \(date.timeIntervalSince1970) lies outside 1970 ... now + \(limits.maxClockSkew)"
        }
        return nil
    }

    /// Whether `text` can be a peer id: 1 to 64 ASCII letters, digits or `-` (a store's own is a
    /// lower-case UUID), so it can name a peer in a log line or a ledger as it is.
    package static func isPeerID(_ text: some StringProtocol) -> Bool {
        (1...64).contains(text.utf8.count)
            && text.utf8.allSatisfy { (48...57).contains($0) || (97...122).contains($0) || (65...90).contains($0) || $0 == UInt8(ascii: "-") }
    }

    /// `<13-digit milliseconds>-<6-digit counter>-<peer id>`, not ahead of the local clock by more than the skew.
    func clock(_ stamp: ClockStamp) -> String? {
        let fields = stamp.rawValue.split(separator: "-", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3, fields[0].utf8.count == 13, fields[1].utf8.count == 6,
              fields[0].utf8.allSatisfy({ (48...57).contains($0) }), fields[1].utf8.allSatisfy({ (48...57).contains($0) }),
              Self.isPeerID(fields[2]),
              let milliseconds = Int64(fields[0])
        else { return "clock stamp \(PeerText.quoted(stamp.rawValue)) is malformed" }
        guard milliseconds <= latestAllowed else {
            return "clock stamp \(stamp.rawValue) is \(milliseconds - nowMilliseconds) ms ahead of this machine's clock "
                + "(at most \(limits.maxClockSkew) allowed)"
        }
        return nil
    }

    /// At most ``VersionVector/maximumPeers`` well-formed stamps, each under its own peer, none
    /// later than the change's own clock (which stamps its latest change, of the text or not).
    func versions(_ versions: VersionVector, clock own: ClockStamp) -> String? {
        guard versions.stamps.count <= VersionVector.maximumPeers else {
            return "versions name \(versions.stamps.count) peers, more than \(VersionVector.maximumPeers)"
        }
        for (peer, stamp) in versions.stamps.sorted(by: { $0.key < $1.key }) {
            if let problem = clock(stamp) { return "versions: \(problem)" }
            guard stamp.peer == peer else { return "versions: stamp \(PeerText.quoted(stamp.rawValue)) is filed under another peer" }
        }
        if let later = versions.stamps.values.first(where: { $0 > own }) {
            return "versions include \(later.rawValue), later than the change's own clock \(own.rawValue)"
        }
        return nil
    }

    func position(_ position: Int) -> String? {
        (0...limits.maxPosition).contains(position) ? nil : "position \(position) is outside 0...\(limits.maxPosition)"
    }

    func byteCount(_ count: Int64) -> String? {
        (0...limits.maxBlobBytes).contains(count) ? nil : "byte count \(count) is outside 0...\(limits.maxBlobBytes)"
    }

    func image(_ image: Attachment.ImageInfo?) -> String? {
        guard let image else { return nil }
        guard (1...1_000_000).contains(image.width), (1...1_000_000).contains(image.height), (1...8).contains(image.orientation) else {
            return "image size \(image.width)×\(image.height) or orientation \(image.orientation) is impossible"
        }
        if let duration = image.durationMilliseconds, !(0...Self.longestVideoMilliseconds).contains(duration) {
            return "video duration \(duration) ms is impossible"
        }
        if let pages = image.pageCount, !(1...DocumentHeader.maximumPages).contains(pages) {
            return "page count \(pages) is impossible"
        }
        return nil
    }

    /// A Live Photo's clip: a size like any original's, a video type this store plays, a file
    /// name that keeps ``RecordRules``, a possible playing time. (Its hash was checked decoding it.)
    func motion(_ motion: Attachment.Motion) -> String? {
        if let problem = byteCount(motion.byteCount) { return "motion: \(problem)" }
        guard MediaTypeSniffer.isVideo(motion.mediaType) else { return "motion: media type \(PeerText.quoted(motion.mediaType)) is not a video" }
        if let problem = Self.filename(motion.filename) { return "motion: \(problem)" }
        if let duration = motion.durationMilliseconds, !(0...Self.longestVideoMilliseconds).contains(duration) {
            return "motion: video duration \(duration) ms is impossible"
        }
        return nil
    }

    /// A motion photo's clip starts inside the photo's bytes, after at least a JPEG header.
    func embeddedVideo(at offset: Int, in byteCount: Int64) -> String? {
        (MotionPhoto.smallestPicture..<max(MotionPhoto.smallestPicture, byteCount)).contains(Int64(offset)) ? nil
            : "embedded video offset \(offset) lies outside the photo's \(byteCount) bytes"
    }

    /// A Live Photo identifier as a file would carry it (the rule `LivePhotoIdentifier` keeps).
    static func contentIdentifier(_ identifier: String) -> String? {
        LivePhotoIdentifier.validated(identifier) == nil ? "content identifier \(PeerText.quoted(identifier)) is malformed" : nil
    }

    func metadata(_ metadata: [String: String]) -> String? {
        guard metadata.count <= limits.maxMetadataEntries else {
            return "\(metadata.count) metadata entries, more than \(limits.maxMetadataEntries)"
        }
        let bytes = metadata.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        guard bytes <= limits.maxMetadataBytes else { return "metadata is \(bytes) bytes, more than \(limits.maxMetadataBytes)" }
        for (key, value) in metadata {
            if let problem = text(key, "a metadata key", max: 256, allowNewlines: false) ?? text(value, "metadata", max: limits.maxMetadataBytes, allowNewlines: true) {
                return problem
            }
        }
        return nil
    }
}
