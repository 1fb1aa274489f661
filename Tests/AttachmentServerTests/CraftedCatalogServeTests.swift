@testable import AttachmentServer
import Foundation
import HummingbirdTesting
import Testing
import TestSupport

/// A catalog row whose blob hash is a path out of the store (written around the schema's check):
/// the server refuses to serve it instead of sending the file it names.
@Suite("Serving a crafted catalog row", .timeLimit(.minutes(2)))
struct CraftedCatalogServeTests {
    @Test("GET of the original or thumbnail of an attachment whose blob hash is a path is a 500 store_damaged, never the file it names")
    func craftedRowIsNotServed() async throws {
        let fixture = try ServerFixture()
        _ = try await fixture.store()
        let victim = fixture.directory.appending("victim")
        let secret = Data("the user's private key\n".utf8)
        try secret.write(to: victim)
        let id = UUID().uuidString.lowercased()
        try HostileCatalog.tamper(sqliteCatalog: fixture.configuration.storeDirectory.appending(path: "catalog.sqlite").path(percentEncoded: false),
                                  HostileCatalog.plantingAttachment(hash: HostileCatalog.siblingHash("victim"),
                                                                    byteCount: Int64(secret.count), attachmentID: id))
        try await fixture.test { client in
            for path in ["original", "thumbnail?size=200"] {
                let response = try await client.execute(uri: "/api/attachments/\(id)/\(path)", method: .get)
                #expect(response.status == .internalServerError, "\(path)")
                #expect(JSON.errorCode(response) == "store_damaged", "\(path)")
                #expect(!String(decoding: Data(buffer: response.body), as: UTF8.self).contains("private key"), "\(path)")
            }
        }
        #expect(try Data(contentsOf: victim) == secret)
    }
}
