import ArgumentParser
import Foundation

/// Secrets read from files (`--token-file`, `ATTACH_CATALOG_FILE`, …), so that none has to sit on a
/// command line, where `ps` shows it to every user of the machine.
enum SecretFile {
    /// The file's one line of text, without the line break around it.
    /// - Throws: `ValidationError` naming `option` and the file when it cannot be read, is empty,
    ///   or holds more than one line (a secret is one line; two would be a mistake, not a choice).
    static func read(_ path: String, for option: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("\(option) \(path): the file cannot be read")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ValidationError("\(option) \(path): the file is not UTF-8 text")
        }
        let secret = text.trimmingCharacters(in: .newlines)
        guard !secret.isEmpty else { throw ValidationError("\(option) \(path): the file is empty") }
        guard !secret.contains(where: \.isNewline) else {
            throw ValidationError("\(option) \(path): the file holds more than one line; put the secret alone on one line")
        }
        return secret
    }

    /// `value`, or the contents of `file`; never both.
    static func either(_ value: String?, option: String, file: String?, fileOption: String) throws -> String? {
        switch (value, file) {
        case (let value?, nil): return value
        case (nil, let file?): return try read(file, for: fileOption)
        case (nil, nil): return nil
        case (.some, .some): throw ValidationError("give \(option) or \(fileOption), not both")
        }
    }
}
