import GRDB

extension StoreStatement {
    /// The statement's values as GRDB binds them.
    var databaseArguments: StatementArguments { StatementArguments(arguments.map(\.databaseValue)) }
}
