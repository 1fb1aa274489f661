import Foundation
import Hummingbird

/// The per-request context of every route: Hummingbird's core storage plus JSON coders that
/// read and write dates as ISO 8601.
public struct AppRequestContext: RequestContext {
    /// Hummingbird's own per-request storage (logger, route, parameters).
    public var coreContext: CoreRequestContextStorage

    /// Creates the context for one request.
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
    }

    /// JSON request bodies (note edits) are small; anything bigger than 1 MiB is refused.
    public var maxUploadSize: Int { 1 << 20 }

    /// Decodes JSON with ISO 8601 dates.
    public var requestDecoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// Encodes JSON with ISO 8601 dates and sorted keys.
    public var responseEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
