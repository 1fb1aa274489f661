import CatalogSQL

/// How the catalog lists notes in a ``NoteOrder``: the column its index is on, the direction, and
/// how a cursor's place becomes the bound of the next page. One place for what each order means
/// in SQL (``NoteRecord/page(matching:order:limit:offset:after:dialect:in:)`` writes the query).
struct NoteListing {
    /// The indexed column the order follows (then the id).
    let column: String
    /// `DESC` (newest first) or `ASC` (A to Z).
    let direction: String
    /// The comparison with the cursor's place that keeps its ties: `<=` or `>=`.
    let from: String
    /// The comparison with the cursor's place that leaves its ties out: `<` or `>`.
    let beyond: String

    init(_ order: NoteOrder) {
        switch order {
        case .updated: (column, direction, from, beyond) = ("updatedAt", "DESC", "<=", "<")
        case .created: (column, direction, from, beyond) = ("createdAt", "DESC", "<=", "<")
        case .title: (column, direction, from, beyond) = ("titleKey", "ASC", ">=", ">")
        }
    }

    /// The cursor's place as the column holds it.
    func value(_ place: NoteCursor.Place) -> SQLValue {
        switch place {
        case .milliseconds(let milliseconds): .text(SQLDateFormat.string(milliseconds: milliseconds))
        case .titleKey(let key): .text(key)
        }
    }
}
