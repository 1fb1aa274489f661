@testable import attach
import AttachmentStore
import AttachmentSync
import Testing

/// What `attach` adds to a peer's failure: the options that would fix it, chosen from the typed
/// error the library keeps (its own words name no flag), also when the failure is one of several
/// peers' behind a blob nobody could deliver.
@Suite("Peer error hints")
struct PeerErrorHintTests {
    static let hash = BlobHash(rawValue: String(repeating: "ab", count: 32))!

    @Test("a 401 names the token options, an untrusted certificate --peer-ca, a full disk gc and the budget; others nothing")
    func hints() {
        #expect(ErrorHint.hint(for: .peerRefused(peer: "http://a:1", status: 401, message: "no"))?.contains("--peer-token-file") == true)
        #expect(ErrorHint.hint(for: .peerCertificateUntrusted(peer: "https://a:1"))?.contains("--peer-ca FILE") == true)
        #expect(ErrorHint.hint(for: .peerRefused(peer: "http://a:1", status: 500, message: "")) == nil)
        #expect(ErrorHint.hint(for: .peerUnreachable(peer: "http://a:1", reason: "refused")) == nil)
        for error in [SyncError.peerRefused(peer: "http://a:1", status: 401, message: ""), .peerCertificateUntrusted(peer: "https://b:2")] {
            #expect(!error.description.contains("--"), "the library's words name no flag: \(error)")
        }
    }

    @Test("a blob no peer delivered keeps each peer's typed failure, and the hint is the first one that has any")
    func blobUnavailableKeepsCauses() {
        let failures: [SyncError] = [.peerUnreachable(peer: "http://a:1", reason: "refused"), .peerCertificateUntrusted(peer: "https://b:2"),
                                     .peerRefused(peer: "http://c:3", status: 401, message: "")]
        let error = SyncError.blobUnavailable(hash: Self.hash, failures: failures)
        #expect(error.peerFailures == failures)
        #expect(ErrorHint.hint(for: error)?.contains("--peer-ca") == true)
        #expect(error.description.contains("peer http://a:1 cannot be reached: refused; peer https://b:2 cannot be reached"))
        #expect(SyncError.blobUnavailable(hash: Self.hash, failures: []).description.hasSuffix("no peer is configured"))
    }
}
