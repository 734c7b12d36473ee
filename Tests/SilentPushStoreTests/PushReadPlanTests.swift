import Foundation
import GRDB
import SilentPushCore
import SilentPushStore
import SilentPushTestSupport
import Testing

/// The lists' reads seek where their filters let them: a page after a cursor starts at the
/// cursor, not at the newest row (an export read every row above each page again).
@Suite struct PushReadPlanTests {
    static func plan(_ statement: StoreStatement, in path: String) throws -> String {
        let queue = try DatabaseQueue(path: path)
        let arguments = StatementArguments(
            statement.arguments.map { value -> (any DatabaseValueConvertible)? in
                switch value {
                case .null: nil
                case .integer(let integer): integer
                case .real(let real): real
                case .text(let text): text
                case .blob(let bytes): Data(bytes)
                }
            })
        return try queue.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: arguments).map { $0["detail"] as String }
                .joined(separator: "\n")
        }
    }

    @Test func aPageAfterACursorSeeksToIt() async throws {
        let path = PushStoreTests.temporaryPath()
        let store = try await PushStore.open(.file(path))
        try await store.write((1...10).map { .insertPush(PushStoreTests.push($0)) })
        defer { Task { try? await store.close() } }
        let after = try Self.plan(PushStore.pushesStatement(PushQuery(before: 5, limit: 2)), in: path)
        #expect(after.contains("SEARCH pushes USING INTEGER PRIMARY KEY (rowid<?)"), "\(after)")
        let filtered = try Self.plan(PushStore.pushesStatement(PushQuery(fate: .pending, before: 5, limit: 2)), in: path)
        #expect(filtered.contains("SEARCH pushes USING INTEGER PRIMARY KEY (rowid<?)"), "\(filtered)")
        #expect(try await store.pushes(PushQuery(before: 5, limit: 2)).map(\.id) == [4, 3])
        #expect(try await store.pushes(PushQuery(limit: 2)).map(\.id) == [10, 9])
    }

    /// A page of wakes reads their coalesced pushes through the index on wake_id (with a
    /// thousand ids at once, SQLite scanned every push instead).
    @Test func thePushesCoalescedIntoAPageOfWakesAreFoundByTheirIndex() async throws {
        let path = PushStoreTests.temporaryPath()
        let store = try await PushStore.open(.file(path))
        try await store.write([
            .insertPush(PushStoreTests.push(1, fate: .coalesced(into: 5))), .insertPush(PushStoreTests.push(2, fate: .delivered(by: 5))),
        ])
        defer { Task { try? await store.close() } }
        let ids = (1...UInt64(PushStore.wakesPerCoalescedRead)).map { $0 * 5 }
        let plan = try Self.plan(PushStore.coalescedStatement(wakeIDs: ids), in: path)
        #expect(plan.contains("SEARCH pushes USING INDEX pushes_by_wake (wake_id=?)"), "\(plan)")
        let read = try await store.coalescedPushes(wakeIDs: (1...1000).map { UInt64($0) })
        #expect(read.mapValues { $0.map(\.apnsID) } == [5: [PushStoreTests.push(1).apnsID]])
    }
}
