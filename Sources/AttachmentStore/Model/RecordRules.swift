/// What a note or an attachment record may hold: the one rule the store's own writes (the API,
/// the CLI) and the changes of a peer (``PeerInputLimits``' validation) are checked against, so
/// that nothing one store accepts is refused by another and the copies never diverge.
///
/// - A **title** is one line of at most ``maxTitleBytes`` UTF-8 bytes: tabs, but no other
///   control character (C0, DEL, C1) and no line or paragraph separator.
/// - A **body** is at most ``maxBodyBytes``: line breaks and tabs, no other C0 control or DEL.
/// - A **file name** is at most ``maxFilenameBytes`` and not empty, `.` or `..`: no `/`, no
///   control character (C0, DEL, C1) and no bidirectional override or isolate
///   (U+202A–U+202E, U+2066–U+2069), which would show it in another order than it is stored.
///
/// A name typed or sent by someone (``filename(given:)``) is refused when it breaks the rule; a
/// name read from the file system (``filename(fromFileSystem:)``) is mended instead.
public enum RecordRules {
    /// The longest note title, in UTF-8 bytes: 4 KiB.
    public static let maxTitleBytes = 4 << 10
    /// The longest note body, in UTF-8 bytes: 1 MiB.
    public static let maxBodyBytes = 1 << 20
    /// The longest file name, in UTF-8 bytes: 255, what most file systems allow for one name.
    public static let maxFilenameBytes = 255
    /// The name recorded for a file whose own name is empty, `.` or `..`.
    public static let unnamedFile = "attachment"

    /// Why `title` may not be a note's title, or `nil` when it may. The reason starts with `title`.
    public static func problem(title: String) -> String? {
        if let problem = length(title, "title", max: maxTitleBytes) { return problem }
        if let scalar = title.unicodeScalars.first(where: { TextScalars.isUnicodeLineBreak($0) || ($0 != "\t" && TextScalars.isControl($0)) }) {
            let kind = scalar == "\n" || scalar == "\r" || TextScalars.isUnicodeLineBreak(scalar) ? "a line break" : "a control character"
            return "title contains \(kind) (\(TextScalars.name(scalar))); a title is one line of text"
        }
        return nil
    }

    /// The longest alt text of an attachment, in Unicode scalars (characters as JSON Schema's
    /// `maxLength` counts them).
    public static let maxAltTextLength = 1000
    /// The metadata key an attachment's alt text is kept under (it syncs with the record).
    public static let altTextKey = "alt"

    /// Why `text` may not be an attachment's alt text (what a screen reader says for the
    /// picture), or `nil` when it may: one line of at most ``maxAltTextLength`` characters, no
    /// control or bidirectional formatting character. The reason starts with `alt`.
    public static func problem(altText text: String) -> String? {
        if text.unicodeScalars.count > maxAltTextLength {
            return "alt is \(text.unicodeScalars.count) characters; at most \(maxAltTextLength) are allowed"
        }
        if let scalar = text.unicodeScalars.first(where: { TextScalars.isUnicodeLineBreak($0) || TextScalars.isControl($0) || TextScalars.isBidiControl($0) }) {
            return "alt contains \(TextScalars.name(scalar)); alt text is one line of plain text"
        }
        return nil
    }

    /// Why `body` may not be a note's body, or `nil` when it may. The reason starts with `body`.
    public static func problem(body: String) -> String? {
        if let problem = length(body, "body", max: maxBodyBytes) { return problem }
        if let scalar = body.unicodeScalars.first(where: { ($0.value < 0x20 && !["\n", "\r", "\t"].contains($0)) || $0.value == 0x7F }) {
            return "body contains a control character (\(TextScalars.name(scalar))); only line breaks and tabs are allowed"
        }
        return nil
    }

    /// Why `filename` may not be an attachment's file name, or `nil` when it may. The reason
    /// starts with `filename`.
    public static func problem(filename: String) -> String? {
        if let problem = length(filename, "filename", max: maxFilenameBytes) { return problem }
        if filename.isEmpty || filename == "." || filename == ".." {
            return "filename \(filename.isEmpty ? "is empty" : "may not be \(filename)")"
        }
        if filename.contains("/") { return "filename contains /; give the name alone, without a folder" }
        if let scalar = filename.unicodeScalars.first(where: { TextScalars.isControl($0) || TextScalars.isBidiControl($0) || TextScalars.isBidiMark($0) }) {
            let kind = TextScalars.isControl(scalar) ? "a control character" : "a bidirectional formatting character"
            return "filename contains \(kind) (\(TextScalars.name(scalar)))"
        }
        return nil
    }

    /// The file name recorded for a name a person or a client gave: its last `/`-separated
    /// part (a browser may send a path), ``unnamedFile`` when that is empty.
    /// - Throws: ``AttachmentStore/Error/invalidArgument(_:)`` naming the field and the fault
    ///   when the name breaks the rule (too long, a control or bidirectional character).
    public static func filename(given name: String) throws(AttachmentStore.Error) -> String {
        let last = lastComponent(name)
        if let problem = problem(filename: last) { throw .invalidArgument(problem) }
        return last
    }

    /// The file name recorded for a file read from the file system (`attach import`): every
    /// control or bidirectional character becomes `_`, and a name over ``maxFilenameBytes`` is
    /// shortened in its stem so that its extension stays. Mended rather than refused: the name
    /// is a fact of the disk, not something the user typed, and one odd name should not stop an
    /// import of thousands of files; `_` shows that something was there.
    public static func filename(fromFileSystem name: String) -> String {
        let last = lastComponent(name)
        var mended = String(String.UnicodeScalarView(last.unicodeScalars.map {
            TextScalars.isControl($0) || TextScalars.isBidiControl($0) || TextScalars.isBidiMark($0) ? "_" : $0
        }))
        if mended.utf8.count > maxFilenameBytes {
            let dot = mended.lastIndex(of: ".")
            let suffix = dot.map { String(mended[$0...]) }.flatMap { $0.utf8.count <= 16 ? $0 : nil } ?? ""
            var stem = String(mended.dropLast(suffix.count))
            while stem.utf8.count + suffix.utf8.count > maxFilenameBytes { stem.removeLast() }
            mended = stem + suffix
        }
        return problem(filename: mended) == nil ? mended : unnamedFile
    }

    private static func lastComponent(_ name: String) -> String {
        let last = name.split(separator: "/").last.map(String.init) ?? ""
        return last.isEmpty ? unnamedFile : last
    }

    private static func length(_ text: String, _ field: String, max: Int) -> String? {
        let bytes = text.utf8.count
        return bytes > max ? "\(field) is \(bytes) bytes, more than \(max)" : nil
    }
}
