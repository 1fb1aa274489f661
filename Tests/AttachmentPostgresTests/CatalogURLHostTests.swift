@testable import AttachmentPostgres
import Testing

/// The host a catalog URL names is what the resolver is given: an IPv6 address loses the
/// brackets a URL needs around it.
@Suite("Catalog URL hosts")
struct CatalogURLHostTests {
    @Test("an IPv6 address in brackets is connected to without them", arguments: [
        ("postgres://u@[::1]:5432/db", "::1"), ("postgres://u@[fe80::1%25eth0]/db", "fe80::1%eth0"),
        ("postgres://u@[2001:db8::7]/db", "2001:db8::7"), ("postgres://u@db.example.com/db", "db.example.com"),
        ("postgres://u@127.0.0.1:5433/db", "127.0.0.1"),
    ])
    func hosts(url: String, host: String) throws {
        #expect(try CatalogURL(url).host == host)
    }

    @Test("empty brackets are no host")
    func emptyBrackets() {
        #expect(throws: (any Error).self) { try CatalogURL("postgres://u@[]:5432/db") }
    }
}
