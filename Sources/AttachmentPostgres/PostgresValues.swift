import CatalogSQL
import Foundation
import NIOCore
import NIOPosix
import PostgresNIO

/// Binding ``SQLValue``s and reading result cells.
enum PostgresValues {
    /// integer → int8, real → float8, text → text, blob → bytea, null → a NULL of unspecified
    /// type (OID 0), whose type PostgreSQL infers from where the parameter is used.
    static func bindings(_ values: [SQLValue]) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .null: bindings.appendNull()
            case .integer(let integer): bindings.append(integer)
            case .real(let real): bindings.append(real)
            case .text(let text): bindings.append(text)
            case .blob(let data): bindings.append(ByteBuffer(bytes: data))
            }
        }
        return bindings
    }

    /// A result row as a ``SQLRow``, columns named as PostgreSQL returned them.
    static func row(_ row: PostgresRow) throws -> SQLRow {
        var columns: [String] = []
        var values: [SQLValue] = []
        columns.reserveCapacity(row.count)
        values.reserveCapacity(row.count)
        for cell in row {
            columns.append(cell.columnName)
            values.append(try value(cell))
        }
        return SQLRow(columns: columns, values: values)
    }

    /// int2/4/8 and oid → integer; bool → integer 1/0; float4/8 → real; numeric → integer when
    /// integral and within Int64, else real; text, varchar, char, name, unknown, json, jsonb, uuid →
    /// text; bytea → blob; NULL → null. Other types are refused: cast them in the query.
    static func value(_ cell: PostgresCell) throws -> SQLValue {
        guard cell.bytes != nil else { return .null }
        do {
            switch cell.dataType {
            case .int2, .int4, .int8:
                return .integer(try cell.decode(Int64.self))
            case .oid:
                guard let oid = cell.bytes!.getInteger(at: cell.bytes!.readerIndex, as: UInt32.self) else {
                    throw SQLDatabaseError(.other, "column \(cell.columnName) holds a malformed oid")
                }
                return .integer(Int64(oid))
            case .bool:
                return .integer(try cell.decode(Bool.self) ? 1 : 0)
            case .float4, .float8:
                return .real(try cell.decode(Double.self))
            case .numeric:
                let text = try cell.decode(Decimal.self).description
                if let integer = Int64(text) { return .integer(integer) }
                guard let real = Double(text) else { throw SQLDatabaseError(.other, "numeric \(text) in column \(cell.columnName) is not a number") }
                return .real(real)
            case .text, .varchar, .bpchar, .name, .unknown, .json, .jsonb, .uuid:
                return .text(try cell.decode(String.self))
            case .char:
                // PostgreSQL's one-byte "char" type.
                var bytes = cell.bytes!
                return .text(bytes.readString(length: bytes.readableBytes) ?? "")
            case .bytea:
                return .blob(Data(cell.bytes!.readableBytesView))
            default:
                throw SQLDatabaseError(
                    .other,
                    "column \(cell.columnName) has PostgreSQL type \(cell.dataType), which the catalog does not read; cast it (::text, ::bigint)")
            }
        } catch let error as SQLDatabaseError {
            throw error
        } catch {
            throw SQLDatabaseError(.other, "cannot read column \(cell.columnName) of type \(cell.dataType): \(error)")
        }
    }
}
