/// A statement with SQLite's placeholders (`?`, `?N`) and the values they bind.
package struct StoreStatement: Sendable {
    package var sql: String
    package var arguments: [StoreValue]

    package init(_ sql: String, _ arguments: [any StoreValueConvertible] = []) {
        self.sql = sql
        // A closure, not `\.storeValue`: a key path through an existential is instantiated
        // at run time on every call, and this runs for every row written.
        self.arguments = arguments.map { $0.storeValue }
    }
}
