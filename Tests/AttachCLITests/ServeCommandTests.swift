import Foundation
import Testing
import TestSupport

@Suite("attach serve", .timeLimit(.minutes(1)))
struct ServeCommandTests {
    @Test("listening beyond loopback without a token is refused with exit code 1 and the reason")
    func publicAddressNeedsToken() async throws {
        let directory = try TemporaryDirectory("serve")
        let outcome = try await Attach.run(["serve", "--host", "0.0.0.0", "--port", "0"], store: directory.appending("store"))
        #expect(outcome.exitCode == 1)
        #expect(outcome.stderr.contains("refusing to listen on 0.0.0.0 without a token"))
        #expect(outcome.stderr.contains("--token"))
        #expect(!FileManager.default.fileExists(atPath: directory.appending("store").path(percentEncoded: false)))
    }
}
