import HelperProcess

/// Reads a PDF's page count and first page size with `pdfinfo`, run as a limited child process.
public enum DocumentProbe {
    /// The header of the PDF at `path`. Blocks: call it from a thread pool for blocking work.
    /// - Throws: ``ImagingError/unreadable(path:cause:)`` when `pdfinfo` is missing, refuses the
    ///   file, runs out of its limits, or gives an implausible answer; ``ImagingError/cancelled``.
    public static func header(ofFileAt path: String, tools: DocumentTools = DocumentTools(),
                              cancellation: ChildProcessCancellation = ChildProcessCancellation()) throws(ImagingError) -> DocumentHeader {
        let answer = try HelperRun.output(of: tools.pdfinfoPath, arguments: ["-f", "1", "-l", "1", path], limits: tools.probeLimits,
                                          reading: path, cancellation: cancellation)
        return try header(fromInfo: String(decoding: answer, as: UTF8.self), path: path)
    }

    /// The header `pdfinfo`'s answer `text` describes: its `Pages:` line, and the first page's
    /// size (`Page    1 size: 612 x 792 pts`, or `Page size:` when it names no page).
    static func header(fromInfo text: String, path: String) throws(ImagingError) -> DocumentHeader {
        var pages: Int?
        var size: (Double, Double)?
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].split(separator: " ").joined(separator: " ")
            let value = line[line.index(after: colon)...].split(separator: " ")
            if key == "Pages", let first = value.first { pages = Int(first) }
            if key == "Page 1 size" || (key == "Page size" && size == nil), value.count >= 3, value[1] == "x",
               let width = Double(value[0]), let height = Double(value[2]) {
                size = (width, height)
            }
        }
        guard let pages, (1...DocumentHeader.maximumPages).contains(pages) else {
            throw .unreadable(path: path, cause: .implausible("pdfinfo gives it no plausible page count"))
        }
        guard let (width, height) = size, width.isFinite, height.isFinite,
              (1...Double(DocumentHeader.maximumSide)).contains(width), (1...Double(DocumentHeader.maximumSide)).contains(height) else {
            throw .unreadable(path: path, cause: .implausible("pdfinfo gives its first page no plausible size"))
        }
        return DocumentHeader(pageCount: pages, width: Int(width.rounded()), height: Int(height.rounded()))
    }
}
