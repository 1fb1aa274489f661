import ArgumentParser
import AttachmentSync
import Foundation

/// `--peer-ca FILE`: the certificates to trust for `https://` peers, for every command that talks to peers.
struct PeerCertificateOption: ParsableArguments {
    @Option(name: .customLong("peer-ca"),
            help: ArgumentHelp("Trust only the certificates in this PEM file for https:// peers (a private CA).", valueName: "FILE"))
    var file: String?

    /// The HTTP client for the peers; shut it down when done.
    func httpClient() throws -> PeerHTTPClient {
        try PeerHTTPClient.trusting(certificateAuthorityFile: file)
    }
}

/// `--token T` (also read from `$ATTACH_TOKEN`) and `--peer-ca FILE` for the sync commands.
struct PeerTokenOption: ParsableArguments {
    @Option(help: ArgumentHelp("Bearer token of the peer's sync endpoints (default: $ATTACH_TOKEN).", valueName: "T"))
    var token: String?

    @Option(name: .customLong("token-file"), help: ArgumentHelp("Read --token from this file (one line).", valueName: "FILE"))
    var tokenFile: String?

    @OptionGroup var certificates: PeerCertificateOption

    /// The HTTP client for the peers; shut it down when done.
    func httpClient() throws -> PeerHTTPClient { try certificates.httpClient() }

    /// The token to send, if any: `--token`, `--token-file`, else `$ATTACH_TOKEN`.
    func value() throws -> String? {
        try SecretFile.either(token, option: "--token", file: tokenFile, fileOption: "--token-file")
            ?? ProcessInfo.processInfo.environment["ATTACH_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Parses peer URLs with this token.
    func peers(_ urls: [String]) throws -> [Peer] {
        let token = try value()
        return try urls.map { try Peer(parsing: $0, token: token) }
    }
}
