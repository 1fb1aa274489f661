/// What `pdfinfo` says of a PDF: its pages and the size of its first one. Checked, not trusted.
public struct DocumentHeader: Sendable, Equatable {
    /// How many pages it has, 1...``maximumPages``.
    public var pageCount: Int
    /// The first page's width in points (1/72 inch), as a pixel size at 72 dpi.
    public var width: Int
    /// The first page's height in points.
    public var height: Int

    /// The most pages a document may say it has.
    public static let maximumPages = 1_000_000
    /// The largest page side PDF allows, in points (200 inches).
    public static let maximumSide = 14_400

    /// Creates a header value.
    public init(pageCount: Int, width: Int, height: Int) {
        self.pageCount = pageCount
        self.width = width
        self.height = height
    }
}
