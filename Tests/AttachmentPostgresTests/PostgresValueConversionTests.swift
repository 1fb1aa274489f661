@testable import AttachmentPostgres
import CatalogSQL
import Foundation
import NIOCore
@testable import PostgresNIO
import Testing

/// `PostgresValues`: reading result cells of each PostgreSQL type into `SQLValue`s (binary and
/// text formats, as postgres-nio hands them over), the types it refuses and the malformed cells
/// it reports, and binding `SQLValue`s as parameters of the types the catalog documents.
@Suite("PostgreSQL value conversions")
struct PostgresValueConversionTests {
    /// A cell of `type` holding `bytes`.
    static func cell(_ type: PostgresDataType, _ bytes: ByteBuffer?, format: PostgresFormat = .binary, name: String = "c") -> PostgresCell {
        PostgresCell(bytes: bytes, dataType: type, format: format, columnName: name, columnIndex: 0)
    }

    /// A buffer holding `value` big-endian, as PostgreSQL sends integers.
    static func integer<T: FixedWidthInteger>(_ value: T) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(value)
        return buffer
    }

    /// The `SQLDatabaseError` reading `cell` throws, or nil.
    static func refusal(_ cell: PostgresCell) -> SQLDatabaseError? {
        do {
            _ = try PostgresValues.value(cell)
            return nil
        } catch let error as SQLDatabaseError {
            return error
        } catch {
            Issue.record("unexpected error type: \(error)")
            return nil
        }
    }

    // MARK: - Reading cells

    @Test("a NULL cell reads as .null whatever its type, even one the catalog does not read", arguments: [
        PostgresDataType.int8, .text, .bytea, .bool, .numeric, .timestamptz, .point,
    ])
    func nullCells(type: PostgresDataType) throws {
        #expect(try PostgresValues.value(Self.cell(type, nil)) == .null)
    }

    @Test("int2, int4 and int8 widen to a 64-bit integer, negative values and extremes included")
    func integers() throws {
        #expect(try PostgresValues.value(Self.cell(.int2, Self.integer(Int16(-2)))) == .integer(-2))
        #expect(try PostgresValues.value(Self.cell(.int2, Self.integer(Int16.max))) == .integer(Int64(Int16.max)))
        #expect(try PostgresValues.value(Self.cell(.int4, Self.integer(Int32.min))) == .integer(Int64(Int32.min)))
        #expect(try PostgresValues.value(Self.cell(.int8, Self.integer(Int64.max))) == .integer(Int64.max))
        #expect(try PostgresValues.value(Self.cell(.int8, ByteBuffer(string: "-17"), format: .text)) == .integer(-17))
    }

    @Test("an oid reads as an unsigned 32-bit integer, above Int32.max included")
    func oids() throws {
        #expect(try PostgresValues.value(Self.cell(.oid, Self.integer(UInt32(16384)))) == .integer(16384))
        #expect(try PostgresValues.value(Self.cell(.oid, Self.integer(UInt32.max)))
            == .integer(Int64(UInt32.max)))
    }

    @Test("an oid cell shorter than four bytes is refused as malformed, naming the column")
    func malformedOID() {
        let error = Self.refusal(Self.cell(.oid, Self.integer(UInt16(1)), name: "relid"))
        #expect(error == SQLDatabaseError(.other, "column relid holds a malformed oid"))
    }

    @Test("bool reads as integer 1 or 0, in both formats")
    func bools() throws {
        #expect(try PostgresValues.value(Self.cell(.bool, Self.integer(UInt8(1)))) == .integer(1))
        #expect(try PostgresValues.value(Self.cell(.bool, Self.integer(UInt8(0)))) == .integer(0))
        #expect(try PostgresValues.value(Self.cell(.bool, ByteBuffer(string: "t"), format: .text)) == .integer(1))
        #expect(try PostgresValues.value(Self.cell(.bool, ByteBuffer(string: "f"), format: .text)) == .integer(0))
    }

    @Test("float4 and float8 read as doubles")
    func floats() throws {
        var float4 = ByteBuffer()
        float4.writeInteger(Float(0.5).bitPattern)
        var float8 = ByteBuffer()
        float8.writeInteger(Double(-1234.125).bitPattern)
        #expect(try PostgresValues.value(Self.cell(.float4, float4)) == .real(0.5))
        #expect(try PostgresValues.value(Self.cell(.float8, float8)) == .real(-1234.125))
    }

    @Test("numeric reads as an integer when integral and within Int64, else as a real", arguments: [
        ("42", SQLValue.integer(42)),
        ("-7", .integer(-7)),
        ("0", .integer(0)),
        ("9223372036854775807", .integer(Int64.max)),
        ("2.5", .real(2.5)),
        ("-0.125", .real(-0.125)),
        ("92233720368547758070", .real(92_233_720_368_547_758_070)),
    ])
    func numerics(text: String, expected: SQLValue) throws {
        #expect(try PostgresValues.value(Self.cell(.numeric, ByteBuffer(string: text), format: .text)) == expected)
    }

    @Test("text-like types read as text", arguments: [
        PostgresDataType.text, .varchar, .bpchar, .name, .unknown, .json,
    ])
    func textTypes(type: PostgresDataType) throws {
        #expect(try PostgresValues.value(Self.cell(type, ByteBuffer(string: "Ünïcode 'quoted' ?"))) == .text("Ünïcode 'quoted' ?"))
    }

    @Test("jsonb in binary form reads as its JSON text, without the version byte")
    func jsonb() throws {
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt8(1))
        buffer.writeString(#"{"orientation":6}"#)
        #expect(try PostgresValues.value(Self.cell(.jsonb, buffer)) == .text(#"{"orientation":6}"#))
    }

    @Test("PostgreSQL's one-byte \"char\" reads as a one-character text")
    func oneByteChar() throws {
        #expect(try PostgresValues.value(Self.cell(.char, ByteBuffer(string: "r"))) == .text("r"))
    }

    @Test("bytea reads as the exact bytes, empty and zero bytes included")
    func byteas() throws {
        let bytes: [UInt8] = [0x00, 0xFF, 0x10, 0x00]
        #expect(try PostgresValues.value(Self.cell(.bytea, ByteBuffer(bytes: bytes))) == .blob(Data(bytes)))
        #expect(try PostgresValues.value(Self.cell(.bytea, ByteBuffer())) == .blob(Data()), "empty bytes are not NULL")
    }

    @Test("a type the catalog does not read is refused, telling to cast it", arguments: [
        PostgresDataType.timestamptz, .date, .point, .int8Array, .interval,
    ])
    func refusedTypes(type: PostgresDataType) throws {
        let error = try #require(Self.refusal(Self.cell(type, ByteBuffer(bytes: [0, 0, 0, 0, 0, 0, 0, 0]), name: "seen")))
        #expect(error.kind == .other)
        #expect(error.message == "column seen has PostgreSQL type \(type), which the catalog does not read; cast it (::text, ::bigint)")
    }

    @Test("a cell whose bytes do not decode as its type is refused as .other naming the column and type")
    func undecodableCells() throws {
        let shortInt = try #require(Self.refusal(Self.cell(.int4, ByteBuffer(bytes: [0, 1, 2]), name: "width")))
        #expect(shortInt.kind == .other)
        #expect(shortInt.message.hasPrefix("cannot read column width of type \(PostgresDataType.int4): "))
        let badBool = try #require(Self.refusal(Self.cell(.bool, Self.integer(UInt8(2)), name: "flag")))
        #expect(badBool.message.hasPrefix("cannot read column flag of type \(PostgresDataType.bool): "))
        let badNumeric = try #require(Self.refusal(Self.cell(.numeric, ByteBuffer(string: "many"), format: .text, name: "n")))
        #expect(badNumeric.message.hasPrefix("cannot read column n of type \(PostgresDataType.numeric): "))
    }

    // MARK: - Binding values

    @Test("values bind in order as int8, float8, text, bytea, and NULL of unspecified type")
    func bindings() {
        let values: [SQLValue] = [.integer(7), .real(0.5), .text("a ? b"), .blob(Data([1, 2])), .null]
        let bindings = PostgresValues.bindings(values)
        #expect(bindings.count == 5)
        #expect(bindings.metadata.map(\.dataType) == [.int8, .float8, .text, .bytea, .null])
    }

    @Test("no values bind as no parameters")
    func emptyBindings() {
        #expect(PostgresValues.bindings([]).count == 0)
    }
}
