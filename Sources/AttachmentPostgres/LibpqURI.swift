import Foundation

/// The parts of a connection URI as libpq reads them, before any default applies:
/// `postgres[ql]://[USER[:PASSWORD]@][HOST][:PORT][/DATABASE][?NAME=VALUE&…]`, each part
/// percent-decoded. HOST may be a name, an address (IPv6 in brackets) or a percent-encoded
/// directory of a Unix socket (`%2Fvar%2Frun%2Fpostgresql`). Only the grammar is checked here;
/// ``CatalogURL`` decides what the values mean.
struct LibpqURI: Equatable {
    var user: String?
    var password: String?
    var host: String?
    var port: String?
    var database: String?
    /// The query's parameters in order, a value `nil` when the name has no `=`.
    var parameters: [(name: String, value: String?)] = []

    /// Why a text is no connection URI.
    enum Problem: Error, Equatable {
        case scheme
        case severalHosts
        case encoding(part: String)
        case unclosedBracket
        case nestedPath
    }

    static func == (lhs: LibpqURI, rhs: LibpqURI) -> Bool {
        (lhs.user, lhs.password, lhs.host, lhs.port, lhs.database) == (rhs.user, rhs.password, rhs.host, rhs.port, rhs.database)
            && lhs.parameters.map(\.name) == rhs.parameters.map(\.name) && lhs.parameters.map(\.value) == rhs.parameters.map(\.value)
    }

    init(parsing text: String) throws(Problem) {
        var rest: Substring
        if text.hasPrefix("postgresql://") {
            rest = text.dropFirst("postgresql://".count)
        } else if text.hasPrefix("postgres://") {
            rest = text.dropFirst("postgres://".count)
        } else {
            throw .scheme
        }
        if let mark = rest.firstIndex(of: "?") {
            for pair in rest[rest.index(after: mark)...].split(separator: "&", omittingEmptySubsequences: true) {
                let halves = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = try Self.decode(halves[0], part: "parameter name")
                let value = halves.count > 1 ? try Self.decode(halves[1], part: "value of \(name)") : nil
                parameters.append((name, value))
            }
            rest = rest[..<mark]
        }
        if let slash = rest.firstIndex(of: "/") {
            let path = rest[rest.index(after: slash)...]
            guard !path.contains("/") else { throw .nestedPath }
            database = path.isEmpty ? nil : try Self.decode(path, part: "database")
            rest = rest[..<slash]
        }
        if let at = rest.lastIndex(of: "@") {
            let userinfo = rest[..<at]
            if let colon = userinfo.firstIndex(of: ":") {
                user = try Self.decode(userinfo[..<colon], part: "user")
                password = try Self.decode(userinfo[userinfo.index(after: colon)...], part: "password")
            } else {
                user = try Self.decode(userinfo, part: "user")
            }
            rest = rest[rest.index(after: at)...]
        }
        guard !rest.contains(",") else { throw .severalHosts }
        var hostText = rest
        if hostText.hasPrefix("[") {
            guard let close = hostText.firstIndex(of: "]") else { throw .unclosedBracket }
            host = try Self.decode(hostText[hostText.index(after: hostText.startIndex)..<close], part: "host")
            hostText = hostText[hostText.index(after: close)...]
            if hostText.hasPrefix(":") { port = String(hostText.dropFirst()) } else if !hostText.isEmpty { throw .unclosedBracket }
        } else {
            if let colon = hostText.lastIndex(of: ":") {
                port = String(hostText[hostText.index(after: colon)...])
                hostText = hostText[..<colon]
            }
            host = hostText.isEmpty ? nil : try Self.decode(hostText, part: "host")
        }
        if user?.isEmpty == true { user = nil }
    }

    private static func decode(_ text: Substring, part: String) throws(Problem) -> String {
        guard let decoded = String(text).removingPercentEncoding else { throw .encoding(part: part) }
        return decoded
    }
}
