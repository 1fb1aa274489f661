@testable import AttachmentPostgres
import CatalogSQL
import Foundation
import Testing

/// PostgreSQL URLs as libpq's documentation writes them (34.1.1.2, "Connection URIs"), each read
/// as libpq reads it, with nothing from the environment; libpq's environment variables fill what
/// a URL leaves out, and the URL wins over them.
@Suite("PostgreSQL URLs as libpq reads them")
struct LibpqURLTests {
    /// The user running the tests: libpq's default user, and the default database's name.
    static let processUser = String(cString: getpwuid(geteuid())!.pointee.pw_name)

    struct Expected: Sendable, CustomStringConvertible {
        var url: String
        var host: String
        var port = 5432
        var user: String? = nil
        var password: String? = nil
        var database: String? = nil
        var applicationName = "attach"
        var connectTimeout: Duration = .seconds(5)
        var socket: String? = nil
        var description: String { url }
    }

    @Test("every example of libpq's documentation that names one server is read as libpq reads it", arguments: [
        Expected(url: "postgresql://", host: "/var/run/postgresql", socket: "/var/run/postgresql/.s.PGSQL.5432"),
        Expected(url: "postgresql://localhost", host: "localhost"),
        Expected(url: "postgresql://localhost:5433", host: "localhost", port: 5433),
        Expected(url: "postgresql://localhost/mydb", host: "localhost", database: "mydb"),
        Expected(url: "postgresql://user@localhost", host: "localhost", user: "user", database: "user"),
        Expected(url: "postgresql://user:secret@localhost", host: "localhost", user: "user", password: "secret", database: "user"),
        Expected(url: "postgresql://other@localhost/otherdb?connect_timeout=10&application_name=myapp", host: "localhost",
                 user: "other", database: "otherdb", applicationName: "myapp", connectTimeout: .seconds(10)),
        Expected(url: "postgresql:///mydb?host=localhost&port=5433", host: "localhost", port: 5433, database: "mydb"),
        Expected(url: "postgresql://[2001:db8::1234]/database", host: "2001:db8::1234", database: "database"),
        Expected(url: "postgresql:///dbname?host=/var/lib/postgresql", host: "/var/lib/postgresql", database: "dbname",
                 socket: "/var/lib/postgresql/.s.PGSQL.5432"),
        Expected(url: "postgresql://%2Fvar%2Flib%2Fpostgresql/dbname", host: "/var/lib/postgresql", database: "dbname",
                 socket: "/var/lib/postgresql/.s.PGSQL.5432"),
    ])
    func libpqExamples(expected: Expected) throws {
        let url = try CatalogURL(expected.url, environment: [:])
        #expect(url.host == expected.host)
        #expect(url.port == expected.port)
        #expect(url.user == expected.user ?? Self.processUser)
        #expect(url.password == expected.password)
        #expect(url.database == expected.database ?? expected.user ?? Self.processUser)
        #expect(url.applicationName == expected.applicationName)
        #expect(url.connectTimeout == expected.connectTimeout)
        #expect(url.unixSocketPath == expected.socket)
        if expected.socket != nil { #expect(url.tls == .disable, "no TLS over a Unix socket") }
        #expect(url.schema == "public")
    }

    @Test("libpq's example with two hosts is refused with the reason: a catalog names one server")
    func severalHostsRefused() {
        let url = "postgresql://host1:123,host2:456/somedb?target_session_attrs=any&application_name=myapp"
        #expect(CatalogURLParsingTests.refusal(url)?.message.contains("several hosts are not supported") == true)
    }

    @Test("libpq's environment variables fill what the URL leaves out; the URL wins")
    func environmentDefaults() throws {
        let environment = [
            "PGHOST": "db.internal", "PGPORT": "6432", "PGUSER": "svc", "PGPASSWORD": "from-env", "PGDATABASE": "photos",
            "PGSSLMODE": "require", "PGAPPNAME": "attach-a", "PGCONNECT_TIMEOUT": "7",
        ]
        let filled = try CatalogURL("postgres://", environment: environment)
        #expect((filled.host, filled.port, filled.user, filled.password, filled.database) == ("db.internal", 6432, "svc", "from-env", "photos"))
        #expect(filled.tls == .require && filled.applicationName == "attach-a" && filled.connectTimeout == .seconds(7))
        let written = try CatalogURL("postgres://me:pw@other:5432/notes?sslmode=disable&application_name=b", environment: environment)
        #expect((written.host, written.port, written.user, written.password, written.database) == ("other", 5432, "me", "pw", "notes"))
        #expect(written.tls == .disable && written.applicationName == "b")
    }

    @Test("query parameters override the URL's own parts, as in libpq")
    func parametersOverride() throws {
        let url = try CatalogURL("postgres://a:b@h1:1/d1?host=h2&port=2&user=c&password=e&dbname=d2", environment: [:])
        #expect((url.host, url.port, url.user, url.password, url.database) == ("h2", 2, "c", "e", "d2"))
    }

    @Test("pool_max_conns sets the pool's size, from 1 to 64")
    func poolSize() throws {
        #expect(try CatalogURL("postgres://u@h/db", environment: [:]).poolSize == nil)
        #expect(try CatalogURL("postgres://u@h/db?pool_max_conns=16", environment: [:]).poolSize == 16)
        for bad in ["0", "65", "many", "-1"] {
            #expect(CatalogURLParsingTests.refusal("postgres://u@h/db?pool_max_conns=\(bad)")?.message.contains("pool_max_conns") == true)
        }
    }

    @Test("connect_timeout follows libpq: 0 waits (ten minutes here), 1 counts as 2")
    func connectTimeout() throws {
        #expect(try CatalogURL("postgres://u@h/db?connect_timeout=0", environment: [:]).connectTimeout == .seconds(600))
        #expect(try CatalogURL("postgres://u@h/db?connect_timeout=1", environment: [:]).connectTimeout == .seconds(2))
        #expect(CatalogURLParsingTests.refusal("postgres://u@h/db?connect_timeout=soon") != nil)
    }

    @Test("values libpq would refuse, or that would reach PostgreSQL as something else, are refused", arguments: [
        ("postgres://u@h:0/db", "port must be"), ("postgres://u@h:65536/db", "port must be"), ("postgres://u@h:x/db", "port must be"),
        ("postgres://u@h/db?target_session_attrs=read-write", "target_session_attrs"),
        ("postgres://u@h/db?application_name=a%0Ab", "application_name"),
        ("postgres://u@h/db?options=-c%20search_path%3Dx", "unknown parameter options"),
        ("postgres://u@[::1/db", "IPv6"), ("postgres://u@h/d%ZZ", "percent-encoding"),
    ])
    func refusals(text: String, reason: String) {
        let error = CatalogURLParsingTests.refusal(text)
        #expect(error?.kind == .other)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "parsed")")
    }
}
