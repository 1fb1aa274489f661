import Logging
import Synchronization

/// Log records kept in memory, for tests that prove what a server logged.
public final class LogCapture: Sendable {
    /// One logged message with its metadata, rendered as strings.
    public struct Record: Sendable {
        public var level: Logger.Level
        public var message: String
        public var metadata: [String: String]
    }

    private let records = Mutex<[Record]>([])

    public init() {}

    /// A logger (at `level`) whose records this capture keeps.
    public func logger(label: String = "test", level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: label) { _ in Handler(capture: self) }
        logger.logLevel = level
        return logger
    }

    /// Everything logged so far.
    public var all: [Record] { records.withLock { $0 } }

    /// The records whose message is `message`.
    public func records(_ message: String) -> [Record] { all.filter { $0.message == message } }

    fileprivate func append(_ record: Record) { records.withLock { $0.append(record) } }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            capture.append(Record(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
        }
    }
}
