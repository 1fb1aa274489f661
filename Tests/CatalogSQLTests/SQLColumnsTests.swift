import CatalogSQL
import Testing

/// `SQLColumns`: one list of a table's columns gives statements and arguments that agree.
@Suite("SQL columns")
struct SQLColumnsTests {
    struct Tag {
        var id: String
        var name: String
        var uses: Int?
    }

    static let columns = SQLColumns<Tag>(table: "tag", key: ["id"], [
        .init("id") { .text($0.id) },
        .init("name") { .text($0.name) },
        .init("uses") { .integer($0.uses) },
    ])

    @Test("insert names the columns in the list's order with one placeholder each")
    func insertNamesEveryColumnOnce() {
        #expect(Self.columns.insert == "INSERT INTO tag (id, name, uses) VALUES (?, ?, ?)")
        #expect(Self.columns.names == ["id", "name", "uses"])
    }

    @Test("upsert replaces every column but the key; insertIfAbsent leaves the row alone")
    func upsertReplacesAllButTheKey() {
        #expect(Self.columns.upsert
            == "INSERT INTO tag (id, name, uses) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET name = excluded.name, uses = excluded.uses")
        #expect(Self.columns.insertIfAbsent == "INSERT INTO tag (id, name, uses) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING")
    }

    @Test("arguments follow the columns' order, a missing value as NULL")
    func argumentsFollowTheColumns() {
        #expect(Self.columns.arguments(of: Tag(id: "a", name: "Trip", uses: 3)) == [.text("a"), .text("Trip"), .integer(3)])
        #expect(Self.columns.arguments(of: Tag(id: "b", name: "", uses: nil)) == [.text("b"), .text(""), .null])
    }

    @Test("a table whose key is all its columns upserts as insert-if-absent")
    func allKeyColumnsUpsertAsInsertIfAbsent() {
        let pairs = SQLColumns<(String, String)>(table: "pair", key: ["a", "b"], [.init("a") { .text($0.0) }, .init("b") { .text($0.1) }])
        #expect(pairs.upsert == pairs.insertIfAbsent)
        #expect(pairs.upsert.hasSuffix("ON CONFLICT (a, b) DO NOTHING"))
    }
}
