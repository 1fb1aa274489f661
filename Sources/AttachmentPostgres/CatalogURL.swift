import CatalogSQL
import Foundation

/// Where a PostgreSQL catalog lives and how to reach it, written as libpq's users write it:
/// `postgres[ql]://[USER[:PASSWORD]@][HOST][:PORT][/DATABASE][?PARAMETERS]` (``LibpqURI``).
///
/// What the URL leaves out comes from libpq's environment variables (`PGHOST`, `PGPORT`,
/// `PGUSER`, `PGPASSWORD`, `PGDATABASE`, `PGSSLMODE`, `PGSSLROOTCERT`, `PGAPPNAME`,
/// `PGCONNECT_TIMEOUT`), then libpq's defaults: the Unix socket in `/var/run/postgresql`, port
/// 5432, the user running the process, a database named as the user. A HOST (or `host=`)
/// starting with `/` is the directory of a Unix socket. Parameters: libpq's `host`, `port`,
/// `dbname`, `user`, `password`, `sslmode` (`disable`, `prefer` — the default —, `require`,
/// `verify-ca`, `verify-full`), `sslrootcert`, `application_name`, `connect_timeout` and
/// `target_session_attrs=any`; and ours: `schema` and `pool_max_conns` (pgx's name).
struct CatalogURL: Sendable, Equatable {
    /// How the connection is protected, as libpq's `sslmode` names it.
    enum TLSMode: Sendable, Equatable {
        /// Plain TCP (`disable`: a loopback or private network), and every Unix socket.
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
    /// A host name or address for TCP, or — starting with `/` — the directory of a Unix socket.
    var host: String
    var port: Int
    var database: String
    /// The PostgreSQL schema holding the catalog's tables: `public` unless `?schema=` names one.
    var schema: String
    /// TLS, from `sslmode` (and `sslrootcert` for `verify-ca` and `verify-full`); `prefer`
    /// when nothing names one; none over a Unix socket (libpq ignores `sslmode` there too).
    var tls: TLSMode = .prefer
    /// Sent as `application_name` (what `pg_stat_activity` shows): `attach` unless named.
    var applicationName = "attach"
    /// How long one connection attempt may take: `connect_timeout` seconds (0: ten minutes, as
    /// near to libpq's "no limit" as a pool should wait), else 5 s.
    var connectTimeout: Duration = .seconds(5)
    /// The most connections the catalog opens (`pool_max_conns`); `nil` leaves it to the caller.
    var poolSize: Int?

    /// libpq's (Debian's) default socket directory, used when nothing names a host.
    static let defaultSocketDirectory = "/var/run/postgresql"

    /// The socket file when ``host`` is a directory: `HOST/.s.PGSQL.PORT`, as libpq forms it.
    var unixSocketPath: String? { host.hasPrefix("/") ? "\(host)/.s.PGSQL.\(port)" : nil }

    /// Where the catalog is, for messages: `HOST:PORT`, `[ADDRESS]:PORT` or the socket file.
    var location: String { unixSocketPath ?? (host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)") }

    /// Parses `text` and fills what it leaves out from `environment` and libpq's defaults.
    /// - Throws: ``SQLDatabaseError`` (`.other`) naming what is wrong, never the password.
    init(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let uri: LibpqURI
        do {
            uri = try LibpqURI(parsing: text)
        } catch {
            switch error {
            case .scheme: throw Self.invalid("scheme is not postgres")
            case .severalHosts: throw Self.invalid("several hosts are not supported; name one (a proxy or a load balancer in front of several)")
            case .encoding(let part): throw Self.invalid("malformed percent-encoding in the \(part)")
            case .unclosedBracket: throw Self.invalid("an IPv6 address must be written in brackets, [ADDRESS]:PORT")
            case .nestedPath: throw Self.invalid("no database")
            }
        }
        var parameters: [String: String] = [:]
        for (name, value) in uri.parameters {
            guard Self.parameterNames.contains(name) else { throw Self.invalid("unknown parameter \(name)") }
            guard let value, !value.isEmpty else { throw Self.invalid("\(name) has no value") }
            parameters[name] = value
        }
        func setting(_ parameter: String, _ fromURI: String?, _ variable: String) -> String? {
            parameters[parameter] ?? fromURI ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 }
        }

        let host = setting("host", uri.host, "PGHOST") ?? Self.defaultSocketDirectory
        guard !host.isEmpty else { throw Self.invalid("no host") }
        let portText = setting("port", uri.port.flatMap { $0.isEmpty ? nil : $0 }, "PGPORT") ?? "5432"
        guard let port = Int(portText), (1...65_535).contains(port) else { throw Self.invalid("port must be a number from 1 to 65535") }
        guard let user = setting("user", uri.user, "PGUSER") ?? Self.processUser() else {
            throw Self.invalid("no user, and the process's own user has no name")
        }
        let database = setting("dbname", uri.database, "PGDATABASE") ?? user
        var schema = "public"
        if let value = parameters["schema"] {
            guard Self.isValidSchemaName(value) else {
                throw Self.invalid("schema must be 1 to 63 lower-case letters, digits or _, starting with a letter or _, not pg_…")
            }
            schema = value
        }
        let sslMode = setting("sslmode", nil, "PGSSLMODE") ?? "prefer"
        guard Self.sslModes.contains(sslMode) else { throw Self.invalid("sslmode must be disable, prefer, require, verify-ca or verify-full") }
        let rootCertificate = setting("sslrootcert", nil, "PGSSLROOTCERT")
        guard rootCertificate == nil || sslMode.hasPrefix("verify-") else {
            throw Self.invalid("sslrootcert needs sslmode=verify-ca or verify-full")
        }
        if let name = setting("application_name", nil, "PGAPPNAME") {
            guard name.utf8.count <= 63, name.unicodeScalars.allSatisfy({ (0x20..<0x7f).contains($0.value) }) else {
                throw Self.invalid("application_name must be at most 63 printable ASCII characters")
            }
            applicationName = name
        }
        if let seconds = setting("connect_timeout", nil, "PGCONNECT_TIMEOUT") {
            guard let value = Int(seconds), value >= 0 else { throw Self.invalid("connect_timeout must be a whole number of seconds") }
            // libpq: 0 waits without limit, 1 counts as 2.
            connectTimeout = .seconds(value == 0 ? 600 : max(2, value))
        }
        if let attributes = parameters["target_session_attrs"], attributes != "any" {
            throw Self.invalid("target_session_attrs=\(attributes) chooses among several hosts; with one host only any applies")
        }
        if let size = parameters["pool_max_conns"] {
            guard let value = Int(size), (1...64).contains(value) else { throw Self.invalid("pool_max_conns must be a number from 1 to 64") }
            poolSize = value
        }
        self.user = user
        self.password = setting("password", uri.password, "PGPASSWORD")
        self.host = host
        self.port = port
        self.database = database
        self.schema = schema
        if host.hasPrefix("/") {
            tls = .disable
        } else {
            switch sslMode {
            case "disable": tls = .disable
            case "require": tls = .require
            case "verify-ca": tls = .verifyCA(rootCertificate: rootCertificate)
            case "verify-full": tls = .verifyFull(rootCertificate: rootCertificate)
            default: tls = .prefer
            }
        }
    }

    /// The parameters a URL may carry: libpq's that apply to one catalog, and ours.
    static let parameterNames: Set<String> = [
        "host", "port", "dbname", "user", "password", "sslmode", "sslrootcert", "application_name", "connect_timeout",
        "target_session_attrs", "schema", "pool_max_conns",
    ]

    /// The `sslmode` values understood: libpq's, but `allow` (plain first, TLS only when the
    /// server insists), which postgres-nio cannot do.
    static let sslModes = ["disable", "prefer", "require", "verify-ca", "verify-full"]

    private static func invalid(_ reason: String) -> SQLDatabaseError {
        SQLDatabaseError(.other, "invalid PostgreSQL URL (\(reason)); expected "
                         + "postgres://USER:PASSWORD@HOST:PORT/DATABASE[?schema=NAME][&sslmode=\(sslModes.joined(separator: "|"))][&sslrootcert=FILE]"
                         + "[&application_name=NAME][&pool_max_conns=N] (HOST may be a socket directory, %2Fvar%2Frun%2Fpostgresql)")
    }

    /// The name of the user running this process, libpq's default user.
    private static func processUser() -> String? {
        guard let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name else { return nil }
        return String(cString: name)
    }

    /// Schema names are used unquoted in SQL (in `set_config('search_path', …)` and
    /// `CREATE SCHEMA`), so only names that need no quoting are allowed.
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
