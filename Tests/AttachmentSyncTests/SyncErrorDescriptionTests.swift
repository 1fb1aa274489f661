import AttachmentStore
import AttachmentSync
import Testing

/// `SyncError`: one line a log or a terminal can show, whatever a peer sent, and each peer's
/// failure kept typed.
@Suite("Sync error descriptions")
struct SyncErrorDescriptionTests {
    @Test("a peer's error text is escaped: no line break, escape sequence or bidi override reaches the line")
    func peerTextIsEscaped() {
        let hostile = "bad\nFAKE LOG LINE\u{1B}[31m\u{202E}txt.exe"
        let line = SyncError.peerRefused(peer: "https://p.example", status: 500, message: hostile).description
        #expect(!line.contains("\n"))
        #expect(!line.contains("\u{1B}"))
        #expect(!line.contains("\u{202E}"))
        #expect(line.hasPrefix("peer https://p.example answered 500: "))
    }

    @Test("a long peer text is cut, so one peer cannot flood the log")
    func longPeerTextIsCut() {
        let line = SyncError.badResponse(peer: "https://p.example", reason: String(repeating: "x", count: 100_000)).description
        #expect(line.count < 1_000)
    }

    @Test("a blob no peer delivered keeps each peer's failure, typed")
    func blobUnavailableKeepsEachFailure() throws {
        let hash = try #require(BlobHash(rawValue: String(repeating: "ab", count: 32)))
        let failures: [SyncError] = [
            .peerCertificateUntrusted(peer: "https://a.example"),
            .wrongBytes(peer: "https://b.example", hash: hash),
        ]
        let error = SyncError.blobUnavailable(hash: hash, failures: failures)
        #expect(error.peerFailures == failures)
        #expect(error.description.contains("TLS certificate"))
        #expect(error.description.contains("served wrong bytes"))
        #expect(SyncError.blobUnavailable(hash: hash, failures: []).description.hasSuffix("no peer is configured"))
    }

    @Test("a 401 says the peer does not accept this store's token, without naming a flag")
    func unauthorizedSaysWhyWithoutAFlag() {
        let line = SyncError.peerRefused(peer: "https://p.example", status: 401, message: "").description
        #expect(line.contains("does not accept the token"))
        #expect(!line.contains("--"))
    }
}
