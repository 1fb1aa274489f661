/// The order of a list of notes, each read straight off an index of the catalog, so a page costs
/// the same however deep it is and whatever the order.
public enum NoteOrder: String, Sendable, Hashable, CaseIterable {
    /// Most recently changed first (the default).
    case updated
    /// Most recently created first.
    case created
    /// By title, A to Z, as people sort names: without regard to case or accents, numbers by
    /// value ("Trip 9" before "Trip 10"), untitled notes last (`NoteTitleSortKey` in `CatalogSQL`).
    case title

    /// What a person reads for it: "last changed", "created", "title".
    public var label: String {
        switch self {
        case .updated: "Last changed"
        case .created: "Created"
        case .title: "Title"
        }
    }
}
