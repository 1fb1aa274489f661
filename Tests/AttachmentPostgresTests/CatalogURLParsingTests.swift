@testable import AttachmentPostgres
import CatalogSQL
import NIOSSL
import Testing

/// `CatalogURL` beyond the basic cases: percent-escapes in the user and password, the parts
/// that default, the schema-name rule at its edges, parameter order, refusal messages (which
/// never repeat the password), and the TLS settings each `sslmode` turns into.
@Suite("PostgreSQL catalog URLs: parsing edges and TLS settings")
struct CatalogURLParsingTests {
    /// The error parsing `text` throws, or nil when it parses.
    static func refusal(_ text: String) -> SQLDatabaseError? {
        do {
            _ = try CatalogURL(text)
            return nil
        } catch let error as SQLDatabaseError {
            return error
        } catch {
            Issue.record("unexpected error type: \(error)")
            return nil
        }
    }

    // MARK: - User, password, host, port, database

    @Test("percent-escapes in the user and password are decoded", arguments: [
        ("postgres://attach:p%3Aw%2Fd%25x%40y@h/db", "attach", "p:w/d%x@y"),
        ("postgres://us%40er:pass@h/db", "us@er", "pass"),
        ("postgres://u:%20spaced%20@h/db", "u", " spaced "),
        ("postgres://u:%C3%BCnicode@h/db", "u", "ünicode"),
        ("postgres://u:a%3Db%26c%3Fd%23@h/db", "u", "a=b&c?d#"),
    ])
    func escapedCredentials(text: String, user: String, password: String) throws {
        let url = try CatalogURL(text)
        #expect(url.user == user)
        #expect(url.password == password)
    }

    @Test("a URL without a password has none, for trust or certificate logins")
    func noPassword() throws {
        let url = try CatalogURL("postgres://attach@db.internal/catalog")
        #expect(url.user == "attach")
        #expect(url.password == nil)
        #expect(url.host == "db.internal")
        #expect(url.port == 5432)
        #expect(url.database == "catalog")
        #expect(url.schema == "public")
        #expect(url.tls == .prefer)
    }

    @Test("both schemes are accepted and read the same", arguments: ["postgres", "postgresql"])
    func schemes(scheme: String) throws {
        let url = try CatalogURL("\(scheme)://u:p@h:6543/db?schema=s")
        #expect(url == CatalogURL(unchecked: "u", "p", "h", 6543, "db", "s"))
    }

    @Test("the port is read as written, at both ends of its range", arguments: [1, 5432, 5433, 65535])
    func ports(port: Int) throws {
        #expect(try CatalogURL("postgres://u@h:\(port)/db").port == port)
    }

    @Test("a percent-encoded database name is decoded")
    func encodedDatabaseName() throws {
        #expect(try CatalogURL("postgres://u@h/my%20notes").database == "my notes")
    }

    @Test("a path of more than one segment names no database and is refused")
    func nestedPathRefused() {
        #expect(Self.refusal("postgres://u@h/db/extra")?.message.contains("(no database)") == true)
        #expect(Self.refusal("postgres://u@h/db/")?.message.contains("(no database)") == true)
    }

    @Test("each refusal names its reason and shows the expected form", arguments: [
        ("mysql://u:p@h/db", "scheme is not postgres"),
        ("postgres://u:p@[]/db", "no host"),
        ("postgres://a:1,b:2/db", "several hosts are not supported; name one (a proxy or a load balancer in front of several)"),
        ("postgres://u:p@h:99999/db", "port must be a number from 1 to 65535"),
        ("postgres://u:p@h/db?sslmode=verify-full&sslrootcert=", "sslrootcert has no value"),
        ("postgres://u:p@h/db?sslrootcert=/ca.pem", "sslrootcert needs sslmode=verify-ca or verify-full"),
        ("postgres://u:p@h/db?Schema=x", "unknown parameter Schema"),
        ("postgres://u:p@h/db?sslmode=REQUIRE", "sslmode must be disable, prefer, require, verify-ca or verify-full"),
        ("postgres://u:p@h/db?sslmode=allow", "sslmode must be disable, prefer, require, verify-ca or verify-full"),
    ])
    func refusalReasons(text: String, reason: String) throws {
        let error = try #require(Self.refusal(text))
        #expect(error.kind == .other)
        #expect(error.message.hasPrefix("invalid PostgreSQL URL (\(reason)); expected postgres://USER:PASSWORD@HOST:PORT/DATABASE"))
    }

    @Test("a refusal never repeats the password of the URL it refuses", arguments: [
        "postgres://attach:Sup3rS3cret@h/db?unknown=1",
        "postgres://attach:Sup3rS3cret@h/db?schema=Bad",
        "postgres://attach:Sup3rS3cret@h:0/db",
        "ftp://attach:Sup3rS3cret@h/db",
        "postgres://attach:Sup3rS3cret@h/db?sslmode=allow",
    ])
    func refusalHidesPassword(text: String) throws {
        let error = try #require(Self.refusal(text))
        #expect(!error.message.contains("Sup3rS3cret"))
        #expect(!error.description.contains("Sup3rS3cret"))
    }

    // MARK: - Parameters

    @Test("sslrootcert may come before sslmode=verify-full")
    func parameterOrder() throws {
        let url = try CatalogURL("postgres://u@h/db?sslrootcert=/etc/ssl/ca.pem&schema=notes&sslmode=verify-full")
        #expect(url.tls == .verifyFull(rootCertificate: "/etc/ssl/ca.pem"))
        #expect(url.schema == "notes")
    }

    @Test("a parameter given twice takes its last value")
    func repeatedParameter() throws {
        let url = try CatalogURL("postgres://u@h/db?schema=first&schema=second&sslmode=require&sslmode=disable")
        #expect(url.schema == "second")
        #expect(url.tls == .disable)
    }

    @Test("a parameter without a value is refused", arguments: [
        "postgres://u@h/db?schema", "postgres://u@h/db?schema=", "postgres://u@h/db?sslmode", "postgres://u@h/db?sslrootcert",
    ])
    func valuelessParameters(text: String) {
        #expect(Self.refusal(text)?.kind == .other)
    }

    // MARK: - Schema names

    @Test("schema names that need no quoting are valid", arguments: [
        "a", "_", "_catalog", "catalog_2", "pg", "pgx", "p_g", "z9", String(repeating: "s", count: 63),
    ])
    func validSchemaNames(name: String) throws {
        #expect(CatalogURL.isValidSchemaName(name))
        #expect(try CatalogURL("postgres://u@h/db?schema=\(name)").schema == name)
    }

    @Test("schema names that would need quoting, are reserved or too long are invalid", arguments: [
        "", "9lives", "Catalog", "cat-alog", "cat alog", "cat.alog", "pg_", "pg_temp", "ünï", "a\"b", "a;drop",
        String(repeating: "s", count: 64),
    ])
    func invalidSchemaNames(name: String) {
        #expect(!CatalogURL.isValidSchemaName(name))
    }

    // MARK: - Write-lock keys

    @Test("every schema gets its own write-lock key")
    func writeLockKeysDiffer() throws {
        let schemas = ["public", "a", "b", "ab", "ba", "catalog_1", "catalog_2", "_", String(repeating: "s", count: 63)]
        let keys = try schemas.map { try CatalogURL("postgres://u@h/db?schema=\($0)").writeLockKey }
        #expect(Set(keys).count == schemas.count)
    }

    @Test("the write-lock key ignores the user, password, host, port, database and TLS settings")
    func writeLockKeyIgnoresConnection() throws {
        let key = try CatalogURL("postgres://u@h/db?schema=shared").writeLockKey
        for text in ["postgresql://other:pw@10.0.0.2:6000/elsewhere?schema=shared",
                     "postgres://u@h/db?schema=shared&sslmode=verify-full&sslrootcert=/ca.pem"] {
            #expect(try CatalogURL(text).writeLockKey == key)
        }
    }

    // MARK: - TLS settings

    @Test("sslmode=disable gives no TLS settings at all")
    func tlsDisabled() throws {
        #expect(try CatalogConnections.tlsConfiguration(.disable) == nil)
    }

    @Test("sslmode=require encrypts without checking the certificate")
    func tlsRequire() throws {
        let tls = try #require(try CatalogConnections.tlsConfiguration(.require))
        #expect(tls.certificateVerification == .none)
    }

    @Test("sslmode=prefer (the default) offers TLS without checking the certificate, as libpq does")
    func tlsPrefer() throws {
        let tls = try #require(try CatalogConnections.tlsConfiguration(.prefer))
        #expect(tls.certificateVerification == .none)
        #expect(try CatalogURL("postgres://u@h/db").tls == .prefer)
    }

    @Test("sslmode=verify-ca checks the certificate's chain but not its name")
    func tlsVerifyCA() throws {
        let tls = try #require(try CatalogConnections.tlsConfiguration(.verifyCA(rootCertificate: nil)))
        #expect(tls.certificateVerification == .noHostnameVerification)
    }

    @Test("sslmode=verify-full without sslrootcert checks the certificate and its name against the system's roots")
    func tlsVerifyFullSystemRoots() throws {
        let tls = try #require(try CatalogConnections.tlsConfiguration(.verifyFull(rootCertificate: nil)))
        #expect(tls.certificateVerification == .fullVerification)
        #expect(tls.trustRoots == TLSConfiguration.makeClientConfiguration().trustRoots)
    }

    @Test("an sslrootcert file that does not exist is refused as .other naming the file")
    func tlsMissingRootCertificate() {
        #expect {
            _ = try CatalogConnections.tlsConfiguration(.verifyFull(rootCertificate: "/nonexistent/ca.pem"))
        } throws: { error in
            guard let error = error as? SQLDatabaseError else { return false }
            return error.kind == .other && error.message.hasPrefix("cannot read the sslrootcert file /nonexistent/ca.pem: ")
        }
    }
}
