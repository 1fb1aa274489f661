import Foundation

/// Unbuffered writes to standard output and standard error, one line at a time.
///
/// Lines are flushed as they are written, so a reader of a pipe (a script, a test) sees each
/// result the moment it is final.
enum Console {
    /// Writes `line` and a newline to standard output.
    static func out(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Writes `line` and a newline to standard error.
    static func error(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Whether standard error is a terminal (progress bars go there only then).
    static var isInteractive: Bool { isatty(STDERR_FILENO) == 1 }

    /// Writes `value` as one line of JSON (keys sorted, dates in ISO 8601).
    static func json<T: Encodable>(_ value: T) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        out(String(decoding: (try? encoder.encode(value)) ?? Data("null".utf8), as: UTF8.self))
    }
}
