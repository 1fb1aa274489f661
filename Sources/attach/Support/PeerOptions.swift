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

/// The peers' credentials and `--peer-ca FILE` for the commands that talk to peers (`sync pull`,
/// `fetch`, `verify`): each peer's own token with `--peer-token-file URL=FILE` or `--peers-file
/// FILE`, or one `--token T` (also `--token-file`, `$ATTACH_TOKEN`) when exactly one peer is
/// named. See ``PeerCredentials``.
struct PeerTokenOption: ParsableArguments {
    @Option(help: ArgumentHelp("Bearer token of the peer's sync endpoints, when one peer is named (default: $ATTACH_TOKEN).",
                               valueName: "T"))
    var token: String?

    @Option(name: .customLong("token-file"), help: ArgumentHelp("Read --token from this file (one line).", valueName: "FILE"))
    var tokenFile: String?

    @Option(name: .customLong("peer-token-file"),
            help: ArgumentHelp("Send this peer the token in FILE, and no other peer (repeatable).", valueName: "URL=FILE"))
    var peerTokenFiles: [String] = []

    @Option(name: .customLong("peers-file"),
            help: ArgumentHelp("Peers, one a line: `URL` or `URL TOKEN-FILE` (each token goes to its own peer only).", valueName: "FILE"))
    var peersFile: String?

    @OptionGroup var certificates: PeerCertificateOption

    /// The HTTP client for the peers; shut it down when done.
    func httpClient() throws -> PeerHTTPClient { try certificates.httpClient() }

    /// The peers at `urls` and in `--peers-file`, each with its own token.
    /// - Throws: `ValidationError` when a token would reach a peer it is not meant for.
    func peers(_ urls: [String]) throws -> [Peer] {
        var credentials = PeerCredentials(urls: urls, tokenFiles: peerTokenFiles, peersFile: peersFile)
        if let given = try SecretFile.either(token, option: "--token", file: tokenFile, fileOption: "--token-file") {
            credentials.sharedToken = (given, token == nil ? "--token-file" : "--token")
        } else {
            credentials.defaultToken = ProcessInfo.processInfo.environment["ATTACH_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        }
        return try credentials.peers()
    }
}
