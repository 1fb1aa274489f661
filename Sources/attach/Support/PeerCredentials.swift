import ArgumentParser
import AttachmentSync
import Foundation

/// Which token goes to which peer: every command that talks to peers (`serve`, `sync pull`,
/// `fetch`, `verify`) resolves its peers here, so a peer never receives a credential meant
/// for another.
///
/// - `--peer-token-file URL=FILE` (repeatable) gives one peer its own token, read from FILE.
/// - `--peers-file FILE` lists peers, one a line: `URL` or `URL TOKEN-FILE` (a relative
///   TOKEN-FILE is read from the peers file's folder; `#` starts a comment).
/// - One shared token (`--peer-token`, `--token`, a plain `--peer-token-file FILE`,
///   `$ATTACH_TOKEN`) is taken only when exactly one peer is named; with more it is refused
///   (`$ATTACH_TOKEN`, a default, is then left unused).
/// - A URL given two tokens, or a token for a URL that is not a peer, is refused.
struct PeerCredentials {
    /// Peers named by URL, in order (`--peer`, or the URL arguments).
    var urls: [String] = []
    /// `--peer-token-file` values: `URL=FILE`, or a plain `FILE` (the one peer's token).
    var tokenFiles: [String] = []
    /// `--peers-file FILE`.
    var peersFile: String?
    /// The one token for the one peer, and the option it came from (for messages).
    var sharedToken: (value: String, option: String)?
    /// A token from the environment (`$ATTACH_TOKEN`): sent only when exactly one peer is
    /// named and it has no token of its own; otherwise unused.
    var defaultToken: String?

    /// One line of a peers file, or one `URL=FILE`: a peer, and the file with its token.
    struct Entry: Equatable {
        var url: String
        var tokenFile: String?
    }

    /// Whether a `--peer-token-file` value names its peer (`http(s)://…=FILE`).
    static func namesPeer(_ value: String) -> Bool {
        (value.hasPrefix("http://") || value.hasPrefix("https://")) && value.contains("=")
    }

    /// `URL=FILE` split at its first `=`.
    static func entry(_ value: String) -> Entry {
        let equals = value.firstIndex(of: "=")!
        return Entry(url: String(value[..<equals]), tokenFile: String(value[value.index(after: equals)...]))
    }

    /// The entries of a peers file.
    /// - Throws: `ValidationError` naming the file and line.
    static func entries(ofPeersFile path: String) throws -> [Entry] {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw ValidationError("--peers-file \(path): the file cannot be read as UTF-8 text")
        }
        let folder = URL(filePath: path).deletingLastPathComponent()
        var entries: [Entry] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let words = line.prefix { $0 != "#" }.split(whereSeparator: \.isWhitespace).map(String.init)
            switch words.count {
            case 0: continue
            case 1: entries.append(Entry(url: words[0]))
            case 2:
                let file = words[1].hasPrefix("/") ? words[1] : folder.appending(path: words[1]).path(percentEncoded: false)
                entries.append(Entry(url: words[0], tokenFile: file))
            default:
                throw ValidationError("--peers-file \(path), line \(index + 1): write `URL` or `URL TOKEN-FILE`, nothing more")
            }
        }
        return entries
    }

    /// The peers, each with its own token (or none).
    /// - Throws: `ValidationError` for a shared token with more than one peer, a URL with two
    ///   tokens, a token for a URL that is not a peer, a URL that is not a peer's, or a token
    ///   file that cannot be read.
    func peers() throws -> [Peer] {
        var shared = sharedToken
        var named: [Entry] = []
        for value in tokenFiles {
            if Self.namesPeer(value) {
                named.append(Self.entry(value))
            } else {
                guard shared == nil else {
                    throw ValidationError("give one shared peer token, not both \(shared!.option) and --peer-token-file \(value)")
                }
                shared = (try SecretFile.read(value, for: "--peer-token-file"), "--peer-token-file")
            }
        }
        var fromFile: [Entry] = []
        if let peersFile { fromFile = try Self.entries(ofPeersFile: peersFile) }

        var peers: [Peer] = []
        var tokenGiven: [URL: String] = [:]  // which option or file gave each peer its token
        func add(_ text: String) throws -> Int {
            let peer = try Peer(parsing: text)
            if let index = peers.firstIndex(where: { $0.url == peer.url }) { return index }
            peers.append(peer)
            return peers.count - 1
        }
        func give(_ entry: Entry, from source: String, mustBePeer: Bool) throws {
            let known = (try? Peer(parsing: entry.url)).map { peer in peers.contains { $0.url == peer.url } } ?? false
            if mustBePeer && !known {
                throw ValidationError("\(source) \(entry.url)=…: \(entry.url) is not one of the peers; name it with --peer \(entry.url) or fix the URL")
            }
            let index = try add(entry.url)
            guard let file = entry.tokenFile else { return }
            if let earlier = tokenGiven[peers[index].url] {
                throw ValidationError("peer \(peers[index]) is given two tokens (\(earlier) and \(source)); give it one")
            }
            peers[index].token = try SecretFile.read(file, for: source == "--peers-file" ? "--peers-file (token of \(peers[index]))" : source)
            tokenGiven[peers[index].url] = source
        }
        for url in urls { _ = try add(url) }
        for entry in fromFile { try give(entry, from: "--peers-file", mustBePeer: false) }
        for entry in named { try give(entry, from: "--peer-token-file", mustBePeer: true) }

        if let shared {
            guard peers.count <= 1 else {
                throw ValidationError("\(shared.option) is for one peer, and \(peers.count) are named: every peer would receive it; "
                                      + "give each peer its own token with --peer-token-file URL=FILE (repeatable) or --peers-file FILE")
            }
            if let only = peers.first {
                if let earlier = tokenGiven[only.url] {
                    throw ValidationError("peer \(only) is given two tokens (\(earlier) and \(shared.option)); give it one")
                }
                peers[0].token = shared.value
            }
        }
        if let defaultToken, peers.count == 1, peers[0].token == nil { peers[0].token = defaultToken }
        return peers
    }
}
