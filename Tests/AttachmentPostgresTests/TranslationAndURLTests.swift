@testable import AttachmentPostgres
import CatalogSQL
import Logging
import Testing

@Suite("placeholders", .timeLimit(.minutes(3)))
struct PlaceholderTests {
    @Test("each ? outside quotes becomes $1, $2, … in order", arguments: [
        ("SELECT * FROM t WHERE a = ? AND b IN (?, ?)", "SELECT * FROM t WHERE a = $1 AND b IN ($2, $3)", 3),
        ("SELECT '?', 'it''s ?', ?", "SELECT '?', 'it''s ?', $1", 1),
        ("SELECT E'\\'?', ?", "SELECT E'\\'?', $1", 1),
        ("SELECT \"odd?name\" FROM t WHERE x = ?", "SELECT \"odd?name\" FROM t WHERE x = $1", 1),
        ("SELECT 1 -- why?\n, ?", "SELECT 1 -- why?\n, $1", 1),
        ("SELECT /* a /* nested? */ still? */ ?", "SELECT /* a /* nested? */ still? */ $1", 1),
        ("SELECT $$ ? $$, $tag$ it's ? $tag$, ?", "SELECT $$ ? $$, $tag$ it's ? $tag$, $1", 1),
        ("SELECT a$b FROM t WHERE c = ?", "SELECT a$b FROM t WHERE c = $1", 1),
        ("SELECT pg_advisory_xact_lock($1)", "SELECT pg_advisory_xact_lock($1)", 0),
        ("SELECT 'é?' || ?", "SELECT 'é?' || $1", 1),
    ])
    func translates(sql: String, expected: String, count: Int) {
        let translated = Placeholders.translate(sql)
        #expect(translated.sql == expected)
        #expect(translated.count == count)
    }
}

@Suite("catalog URLs", .timeLimit(.minutes(3)))
struct CatalogURLTests {
    @Test("user, password, host, port, database and schema are read; the schema defaults to public")
    func parses() throws {
        let url = try CatalogURL("postgres://attach:p%40ss@127.0.0.1:55432/attach?schema=catalog_1")
        #expect(url == CatalogURL(unchecked: "attach", "p@ss", "127.0.0.1", 55432, "attach", "catalog_1"))
        #expect(try CatalogURL("postgresql://u@db/x").schema == "public")
        #expect(try CatalogURL("postgresql://u@db/x").port == 5432)
    }

    @Test("malformed URLs and schema names that would need quoting are refused as .other", arguments: [
        "http://u:p@h:1/db", "postgres://u:p@h:0/db", "postgres://a:1,b:2/db", "postgres://u:p@h:1/db?schema=Upper",
        "postgres://u:p@h:1/db?schema=pg_x", "postgres://u:p@h:1/db?schema=1a", "postgres://u:p@h:1/db?schema=a-b",
        "postgres://u:p@h:1/db?sslmode=allow", "postgres://u:p@h:1/db?sslmode=Prefer", "postgres://u:p@h:1/db?sslmode=",
        "postgres://u:p@h:1/db?sslrootcert=/ca.pem", "postgres://u:p@h:1/db?sslmode=require&sslrootcert=/ca.pem",
        "postgres://u:p@h:1/db?unknown=1",
    ])
    func refuses(url: String) {
        #expect(throws: SQLDatabaseError.self) { try CatalogURL(url) }
        #expect((try? CatalogURL(url)) == nil)
    }

    @Test("sslmode and sslrootcert choose TLS: prefer by default, disable, require, or verify-ca/verify-full against a CA file or the system's roots")
    func tlsModes() throws {
        #expect(try CatalogURL("postgres://u:p@h:1/db").tls == .prefer)
        #expect(try CatalogURL("postgres://u:p@h:1/db?sslmode=prefer").tls == .prefer)
        #expect(try CatalogURL("postgres://u:p@h:1/db?sslmode=verify-ca").tls == .verifyCA(rootCertificate: nil))
        #expect(try CatalogURL("postgres://u:p@h:1/db?sslmode=verify-ca&sslrootcert=/etc/ca.pem").tls
                == .verifyCA(rootCertificate: "/etc/ca.pem"))
        #expect(try CatalogURL("postgres://u:p@h:1/db?sslmode=disable").tls == .disable)
        #expect(try CatalogURL("postgres://u:p@h:1/db?sslmode=require&schema=s").tls == .require)
        #expect(try CatalogURL("postgres://u:p@h:1/db?sslmode=verify-full").tls == .verifyFull(rootCertificate: nil))
        #expect(try CatalogURL("postgres://u:p@h:1/db?sslmode=verify-full&sslrootcert=/etc/ca.pem").tls
                == .verifyFull(rootCertificate: "/etc/ca.pem"))
    }

    @Test("the write-lock key depends on the schema only and is stable across runs")
    func writeLockKey() throws {
        let a = try CatalogURL("postgres://u:p@h:1/db?schema=one").writeLockKey
        #expect(a == (try CatalogURL("postgres://v:q@other:2/db2?schema=one").writeLockKey))
        #expect(a != (try CatalogURL("postgres://u:p@h:1/db?schema=two").writeLockKey))
        // FNV-1a of "attachmentstore.catalog.public", fixed so a change of the derivation is noticed:
        // every process sharing a catalog must derive the same key.
        #expect(try CatalogURL("postgres://u:p@h:1/db").writeLockKey == -2_483_908_993_235_486_021)
    }
}

@Suite("connecting", .timeLimit(.minutes(3)))
struct ConnectFailureTests {
    @Test("connecting where no PostgreSQL listens fails .unavailable")
    func nothingListening() async {
        let error = await databaseError {
            _ = try await PostgresCatalogDatabase.connect(url: "postgres://attach:x@127.0.0.1:1/attach", logger: Logger(label: "test"))
        }
        #expect(error?.kind == .unavailable)
    }
}

extension CatalogURL {
    init(unchecked user: String, _ password: String?, _ host: String, _ port: Int, _ database: String, _ schema: String) {
        self = try! CatalogURL("postgres://x@h/d")
        self.user = user; self.password = password; self.host = host; self.port = port; self.database = database; self.schema = schema
    }
}
