import NIOCore

/// Small helpers for building test bodies.
enum ByteBufferHelper {
    /// The UTF-8 bytes of `text`.
    static func buffer(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }
}
