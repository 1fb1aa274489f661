import CatalogSQL
import Foundation

/// Where a PostgreSQL catalog lives and how to reach it: parsed from
/// `postgres://USER:PASSWORD@HOST:PORT/DATABASE[?schema=NAME][&sslmode=MODE][&sslrootcert=FILE]`,
/// `MODE` being libpq's `disable`, `prefer` (the default), `require`, `verify-ca` or `verify-full`.
struct CatalogURL: Sendable, Equatable {
    /// How the connection is protected, as libpq's `sslmode` names it.
    enum TLSMode: Sendable, Equatable {
        /// Plain TCP (`disable`: a loopback or private network).
        case disable
        /// TLS when the server offers it, plain TCP when it does not; the certificate is not
        /// checked (`prefer`, the default, as in libpq): safe from eavesdroppers wherever the
        /// server has TLS, not from an active man in the middle.
        case prefer
        /// TLS, the server's certificate not checked (`require`): safe from eavesdroppers, not
        /// from an active man in the middle.
        case require
        /// TLS with the server's certificate checked against `rootCertificate` (a PEM file, or
        /// the system's roots when `nil`), but not its name (`verify-ca`).
        case verifyCA(rootCertificate: String?)
        /// TLS with the server's certificate checked against `rootCertificate` (a PEM file, or
        /// the system's roots when `nil`) and its name against the host (`verify-full`).
        case verifyFull(rootCertificate: String?)
    }

    var user: String
    var password: String?
    var host: String
    var port: Int
    var database: String
    /// The PostgreSQL schema holding the catalog's tables: `public` unless `?schema=` names one.
    var schema: String
    /// TLS, from `sslmode` (and `sslrootcert` for `verify-ca` and `verify-full`); `prefer`
    /// when the URL names none.
    var tls: TLSMode = .prefer

    /// Parses `text`; `postgresql://` is accepted too, user and password may be percent-encoded,
    /// the port defaults to 5432.
    /// - Throws: ``SQLDatabaseError`` (`.other`) naming what is wrong.
    init(_ text: String) throws {
        func invalid(_ reason: String) -> SQLDatabaseError {
            SQLDatabaseError(.other, "invalid PostgreSQL URL (\(reason)); expected "
                             + "postgres://USER:PASSWORD@HOST:PORT/DATABASE[?schema=NAME][&sslmode=\(Self.sslModes.joined(separator: "|"))][&sslrootcert=FILE]")
        }
        guard let components = URLComponents(string: text) else { throw invalid("not a URL") }
        guard components.scheme == "postgres" || components.scheme == "postgresql" else { throw invalid("scheme is not postgres") }
        // An IPv6 address is written in brackets in a URL (`[::1]`), and without them to a resolver.
        guard let written = components.host, !written.isEmpty else { throw invalid("no host") }
        let host = written.hasPrefix("[") && written.hasSuffix("]") ? String(written.dropFirst().dropLast()) : written
        guard !host.isEmpty else { throw invalid("no host") }
        guard let user = components.user, !user.isEmpty else { throw invalid("no user") }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else { throw invalid("no database") }
        var schema = "public"
        var sslMode = "prefer"
        var rootCertificate: String?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "schema":
                guard let value = item.value, Self.isValidSchemaName(value) else {
                    throw invalid("schema must be 1 to 63 lower-case letters, digits or _, starting with a letter or _, not pg_…")
                }
                schema = value
            case "sslmode":
                guard let value = item.value, Self.sslModes.contains(value) else {
                    throw invalid("sslmode must be disable, prefer, require, verify-ca or verify-full")
                }
                sslMode = value
            case "sslrootcert":
                guard let value = item.value, !value.isEmpty else { throw invalid("sslrootcert names no file") }
                rootCertificate = value
            default:
                throw invalid("unknown parameter \(item.name)")
            }
        }
        self.user = user
        self.password = components.password
        self.host = host
        self.port = components.port ?? 5432
        self.database = database
        self.schema = schema
        guard rootCertificate == nil || sslMode.hasPrefix("verify-") else {
            throw invalid("sslrootcert needs sslmode=verify-ca or verify-full")
        }
        switch sslMode {
        case "disable": tls = .disable
        case "require": tls = .require
        case "verify-ca": tls = .verifyCA(rootCertificate: rootCertificate)
        case "verify-full": tls = .verifyFull(rootCertificate: rootCertificate)
        default: tls = .prefer
        }
    }

    /// The `sslmode` values understood: libpq's, but `allow` (plain first, TLS only when the
    /// server insists), which postgres-nio cannot do.
    static let sslModes = ["disable", "prefer", "require", "verify-ca", "verify-full"]

    /// Schema names are used unquoted in SQL (as `search_path` and in `CREATE SCHEMA`), so only
    /// names that need no quoting are allowed.
    static func isValidSchemaName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...63).contains(bytes.count), !name.hasPrefix("pg_") else { return false }
        func isLetter(_ byte: UInt8) -> Bool { (97...122).contains(byte) || byte == UInt8(ascii: "_") }
        return isLetter(bytes[0]) && bytes.allSatisfy { isLetter($0) || (48...57).contains($0) }
    }

    /// The key of the transaction-level advisory lock that serialises this catalog's writers:
    /// FNV-1a (64 bits) of `attachmentstore.catalog.<schema>`, the same in every process.
    /// Advisory locks are per database, so catalogs in different databases never share one.
    var writeLockKey: Int64 { Self.fnv1a("attachmentstore.catalog.\(schema)") }

    /// The key of the transaction-level advisory lock of one key of ``PostgresCatalogDatabase``'s
    /// `write(locking:_:)`: FNV-1a (64 bits) of `attachmentstore.catalog.<schema>.<key>`. Two
    /// keys whose hashes collide only wait for each other more than they need to.
    func lockKey(for key: String) -> Int64 { Self.fnv1a("attachmentstore.catalog.\(schema).\(key)") }

    private static func fnv1a(_ text: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }
}
