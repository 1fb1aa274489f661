import ArgumentParser
import AttachmentSync
import Foundation

/// `--token T` for the sync commands, also read from `$ATTACH_TOKEN`.
struct PeerTokenOption: ParsableArguments {
    @Option(help: ArgumentHelp("Bearer token of the peer's sync endpoints (default: $ATTACH_TOKEN).", valueName: "T"))
    var token: String?

    /// The token to send, if any.
    var value: String? {
        token ?? ProcessInfo.processInfo.environment["ATTACH_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Parses peer URLs with this token.
    func peers(_ urls: [String]) throws -> [Peer] {
        try urls.map { try Peer(parsing: $0, token: value) }
    }
}
