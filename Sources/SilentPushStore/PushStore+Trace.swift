import GRDB

extension PushStore {
    /// Calls `body` with the text of each SQL statement the store runs from now on, bound
    /// values not expanded. Only a memory store (one connection for reads and writes): for
    /// tests that hold the store's SQL against another engine's parser.
    package func traceStatements(_ body: @escaping @Sendable (String) -> Void) throws {
        guard let database = (engine as? SQLiteEngine)?.database, database is DatabaseQueue else {
            throw PushStoreError.cannotOpen(path: "memory", reason: "only a memory store is traced")
        }
        database.writeWithoutTransaction { db in
            db.trace(options: .statement) { event in
                if case .statement(let statement) = event { body(statement.sql) }
            }
        }
    }
}
