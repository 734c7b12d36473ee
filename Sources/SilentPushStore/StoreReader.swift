/// What the store's reads run on, whichever engine holds the records: statements with
/// SQLite's placeholders, rows back as `StoreRow`s.
protocol StoreReader: Sendable {
    /// The rows `statement` reads. `cached`: a statement run often, worth preparing once per
    /// connection (never one whose text varies with its arguments).
    func rows(_ statement: StoreStatement, cached: Bool) async throws -> [StoreRow]

    /// The rows of each statement, all read from one consistent view of the store.
    func snapshot(_ statements: [StoreStatement]) async throws -> [[StoreRow]]
}

extension StoreReader {
    func rows(_ sql: String, _ arguments: [any StoreValueConvertible] = [], cached: Bool = false) async throws -> [StoreRow] {
        try await rows(StoreStatement(sql, arguments), cached: cached)
    }
}
