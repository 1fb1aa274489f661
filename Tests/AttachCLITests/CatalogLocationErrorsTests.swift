import Foundation
import Testing
import TestSupport

/// What a store command says when its PostgreSQL catalog URL is wrong or leads nowhere: a
/// malformed URL is a usage error (exit 1) naming the part, a catalog that cannot be reached is
/// exit 2 with the place it looked — the socket file libpq's defaults and `PG*` variables led to —
/// and the password never appears.
@Suite("Catalog URLs that are wrong or lead nowhere")
struct CatalogLocationErrorsTests {
    static let password = "s3cret-Pa55"

    @Test("a malformed PostgreSQL URL exits 1 naming what is wrong, before anything is opened")
    func malformedURLIsAUsageError() async throws {
        let directory = try TemporaryDirectory("catalog-url")
        let outcome = try await Attach.run(["stats", "--catalog", "postgres://u:\(Self.password)@h/db?pool_max_conns=0"],
                                           store: directory.appending("store"))
        #expect(outcome.exitCode == 1)
        #expect(outcome.stderr.contains("--catalog: invalid PostgreSQL URL (pool_max_conns must be a number from 1 to 64)"), "\(outcome.stderr)")
        #expect(!outcome.stderr.contains(Self.password))
    }

    @Test("a socket folder where nothing listens exits 2, naming the socket file the PG variables led to")
    func unreachableSocketNamesTheSocketFile() async throws {
        let directory = try TemporaryDirectory("catalog-socket")
        let sockets = directory.appending("no-server").path
        try FileManager.default.createDirectory(atPath: sockets, withIntermediateDirectories: true)
        let outcome = try await Attach.run(["stats", "--catalog", "postgres:///attach"], store: directory.appending("store"),
                                           environment: ["PGHOST": sockets, "PGPORT": "6543", "PGUSER": "attach",
                                                         "PGPASSWORD": Self.password])
        #expect(outcome.exitCode == 2)
        #expect(outcome.stderr.contains("the catalog database cannot be reached (PostgreSQL at \(sockets)/.s.PGSQL.6543"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("nothing was changed"))
        #expect(!outcome.stderr.contains(Self.password))
    }
}
