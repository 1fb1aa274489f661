import AttachmentStore
import Foundation
import Logging

/// The `attach` command's log handler: lines on standard error in swift-log's
/// `StreamLogHandler` format (`2026-11-26T08:56:10+0000 info attach-serve: key=value [Module] message`),
/// with the metadata put into words only when a line is written, and every control, C1 and bidi
/// character in it escaped (`PeerText`): one event is always one line.
///
/// `StreamLogHandler` formats its metadata every time a value is set, and the server's
/// framework sets one (the request id) on every request, whether or not anything is logged:
/// about 2 % of a cached thumbnail's time (`perf record` of `attach serve` under `wrk`). This
/// handler keeps the values and formats them in ``log(event:)``.
struct StandardErrorLogHandler: LogHandler {
    private let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    /// A handler for loggers labelled `label`, with the process's metadata provider.
    init(label: String) {
        self.label = label
        self.metadataProvider = LoggingSystem.metadataProvider
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, provided in provided } }
        if let explicit = event.metadata { merged.merge(explicit) { _, explicit in explicit } }
        if let error = event.error {
            merged["error.message"] = "\(error)"
            merged["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        // A value or message may carry text from outside (a peer's error, a request's path):
        // escaped, it can neither end the line early nor drive the terminal reading it.
        let words = merged.isEmpty ? "" : " " + merged.sorted { $0.key < $1.key }
            .map { "\($0.key)=\(PeerText.escaped("\($0.value)", markup: false))" }.joined(separator: " ")
        let message = PeerText.escaped("\(event.message)", markup: false)
        let line = "\(Self.timestamp()) \(event.level)\(label.isEmpty ? "" : " ")\(label):\(words) [\(event.source)] \(message)\n"
        // One write(2) per line (short writes aside), so lines from several threads do not
        // interleave. A line standard error does not take is dropped: there is nowhere to say so.
        do {
            try Array(line.utf8).withUnsafeBytes { try POSIXFile.writeAll(STDERR_FILENO, $0) }
        } catch {}
    }

    /// Local time as `2026-11-26T08:56:10+0000`.
    private static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        guard localtime_r(&now, &parts) != nil else { return "<unknown>" }
        var buffer = [CChar](repeating: 0, count: 64)
        let length = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
