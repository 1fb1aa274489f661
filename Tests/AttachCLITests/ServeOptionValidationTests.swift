import Foundation
import Testing
import TestSupport

/// The checks `attach serve` makes of its option values before it creates a store or opens a
/// port (they run when the command starts, not when it is parsed, so the built binary is run):
/// each out-of-range or contradictory value is refused with exit 1 and a reason naming the
/// option, and the store folder is left uncreated.
@Suite("attach serve option checks", .timeLimit(.minutes(2)))
struct ServeOptionValidationTests {
    @Test("an impossible or contradictory serve option is refused, naming it, before anything is created", arguments: [
        (["--token", "a", "--token-file", "/nonexistent/token"], "give --token or --token-file, not both"),
        (["--sync-token", "a", "--sync-token-file", "/nonexistent/token"], "give --sync-token or --sync-token-file, not both"),
        (["--tls-cert", "/nonexistent/cert.pem"], "--tls-cert and --tls-key go together"),
        (["--tls-key", "/nonexistent/key.pem"], "--tls-cert and --tls-key go together"),
        (["--session-hours", "0"], "--session-hours must be positive"),
        (["--upload-expiry=-1"], "--upload-expiry must be a positive number of hours"),
        (["--peer-bandwidth", "0"], "--peer-bandwidth must be positive"),
        (["--idle-timeout", "0"], "--idle-timeout must be a positive number of seconds"),
        (["--request-head-timeout", "nan"], "--request-head-timeout must be a positive number of seconds"),
        (["--upload-rate-window=-5"], "--upload-rate-window must be a positive number of seconds"),
        (["--response-write-timeout", "0"], "--response-write-timeout must be a positive number of seconds"),
        (["--min-upload-rate=-1"], "--min-upload-rate must be 0 (none) or positive"),
        (["--sync-interval", "0"], "--sync-interval must be positive"),
        (["--sync-wait", "56"], "--sync-wait takes a whole number of seconds from 0 to 55"),
        (["--sync-wait=-1"], "--sync-wait takes a whole number of seconds from 0 to 55"),
        (["--max-clock-skew", "0"], "--max-clock-skew must be a positive number of seconds"),
        (["--fetch", "always"], "--fetch takes on-demand, thumbnails or originals"),
        (["--budget-interval", "0"], "--budget-interval must be a positive number of seconds"),
        (["--scrub-rate", "none"], "--scrub-rate must be a positive size per second, like 50M"),
        (["--scrub-rate", "0"], "--scrub-rate must be a positive size per second, like 50M"),
        (["--log-level", "loud"], "unknown log level loud"),
    ])
    func refused(options: [String], reason: String) async throws {
        let directory = try TemporaryDirectory("serve-options")
        let store = directory.appending("store")
        let outcome = try await Attach.run(["serve", "--port", "0"] + options, store: store)
        #expect(outcome.exitCode == 1, "\(outcome.stderr)")
        #expect(outcome.stderr.contains(reason), "\(outcome.stderr)")
        #expect(outcome.stdout.isEmpty, "nothing was served")
        #expect(!FileManager.default.fileExists(atPath: store.path(percentEncoded: false)))
    }
}
