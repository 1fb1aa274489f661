@testable import AttachmentServer
import Testing

/// The field that carries a file body from a route to the connection's handler.
@Suite("File body field")
struct FileBodyUnitTests {
    @Test("any absolute path and range survives the field's text", arguments: [
        "/store/blobs/sha256/ab/cd/abcd", "/with space/and%percent/ünïcødé", "/line\r\nbreak/x-attach-file-body: 0 1 /etc/passwd",
    ])
    func fieldRoundTrips(path: String) throws {
        let body = FileBody(path: path, range: 5...1_000_000_000_000)
        #expect(!body.fieldValue.contains { $0 == "\r" || $0 == "\n" })
        #expect(FileBody(fieldValue: body.fieldValue) == body)
    }

    @Test("text that names no file range is refused", arguments: [
        "", "0 9", "9 0 /x", "-1 9 /x", "0 9 relative/path", "a b /x", "0  9 /x", "0 9 /%zz",
    ])
    func malformedFieldIsRefused(value: String) {
        #expect(FileBody(fieldValue: value) == nil)
    }
}
