import Foundation
import GRDB

/// The reads on SQLite, through GRDB's readers (a file store reads beside its writer).
struct SQLiteReader: StoreReader {
    let database: any DatabaseWriter

    func rows(_ statement: StoreStatement, cached: Bool) async throws -> [StoreRow] {
        try await database.read { db in try Self.rows(statement, cached: cached, db) }
    }

    func snapshot(_ statements: [StoreStatement]) async throws -> [[StoreRow]] {
        try await database.read { db in try statements.map { try Self.rows($0, cached: true, db) } }
    }

    private static func rows(_ statement: StoreStatement, cached: Bool, _ db: Database) throws -> [StoreRow] {
        let arguments = StatementArguments(statement.arguments.map(\.databaseValue))
        let prepared = cached ? try db.cachedStatement(sql: statement.sql) : try db.makeStatement(sql: statement.sql)
        let columns = StoreColumns(prepared.columnNames)
        return try Row.fetchAll(prepared, arguments: arguments).map { row in
            StoreRow(columns: columns, values: row.databaseValues.map(StoreValue.init))
        }
    }
}

extension StoreValue {
    /// A value GRDB read.
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let number): self = .integer(number)
        case .double(let number): self = .real(number)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .blob(Array(data))
        }
    }

    /// The value as GRDB binds it.
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let number): number.databaseValue
        case .real(let number): number.databaseValue
        case .text(let text): text.databaseValue
        case .blob(let bytes): Data(bytes).databaseValue
        }
    }
}
