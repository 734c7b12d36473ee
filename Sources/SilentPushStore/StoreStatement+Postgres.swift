import Foundation
import NIOCore
import PostgresNIO
import Synchronization

extension StoreStatement {
    /// The statement as PostgreSQL takes it: `$N` placeholders, each value bound with its
    /// type (NULL untyped: the statement's text gives it one where the server cannot tell).
    var postgresQuery: PostgresQuery {
        var binds = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument {
            case .null: binds.appendNull()
            case .integer(let number): binds.append(number)
            case .real(let number): binds.append(number)
            case .text(let text): binds.append(text)
            case .blob(let bytes): binds.append(ByteBuffer(bytes: bytes))
            }
        }
        return PostgresQuery(unsafeSQL: Self.numbered(sql), binds: binds)
    }

    /// Texts numbered before: the store runs a few dozen texts over and over (a run of 64
    /// pushes is one of 7 kB), so each is scanned once. Texts that vary with their arguments
    /// (an inlined id list) are few; past `numberedLimit` the cache starts again.
    private static let numberedTexts = Mutex<[String: String]>([:])
    private static let numberedLimit = 1024

    private static func numbered(_ sql: String) -> String {
        if let known = numberedTexts.withLock({ $0[sql] }) { return known }
        let numbered = PostgresSchema.numbered(sql)
        numberedTexts.withLock { texts in
            if texts.count >= numberedLimit { texts.removeAll(keepingCapacity: true) }
            texts[sql] = numbered
        }
        return numbered
    }
}
