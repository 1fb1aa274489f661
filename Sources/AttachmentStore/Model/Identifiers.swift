import Foundation

/// The stable identifier of a note: a lowercase UUID string.
public struct NoteID: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The identifier as stored and shown, for example `3f2a…`.
    public let rawValue: String

    /// Wraps an existing identifier string without checking it.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A new, random identifier.
    public static func make() -> NoteID { NoteID(rawValue: UUID().uuidString.lowercased()) }

    public var description: String { rawValue }
}

/// The stable identifier of an attachment: a lowercase UUID string.
public struct AttachmentID: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The identifier as stored and shown.
    public let rawValue: String

    /// Wraps an existing identifier string without checking it.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// A new, random identifier.
    public static func make() -> AttachmentID { AttachmentID(rawValue: UUID().uuidString.lowercased()) }

    public var description: String { rawValue }
}
