import SilentPushCore
import Testing

@testable import SilentPushStore

/// How PostgreSQL's writer sends a batch: as few statements as keep its meaning (each is a
/// round trip), in the pure tier: changes in, statements out, no server.
struct PostgresBatchTests {
    static func wake(_ id: UInt64, result: FetchResult? = nil) -> WakeRecord {
        WakeRecord(
            id: id, deviceToken: "aa", topic: "com.example.app", pushID: id, generation: 0, startedAt: .init(millisecondsSinceEpoch: 1_000),
            deadline: .init(millisecondsSinceEpoch: 31_000), finishedAt: result == nil ? nil : .init(millisecondsSinceEpoch: 2_000), result: result)
    }

    static func statements(_ entries: [[StoreChange]]) -> [StoreStatement] {
        PostgresEngine.statements(entries.map { StoreWriter.Entry(changes: $0, completion: { _ in }) })
    }

    /// The table and row count of an insert, or the statement's first words.
    static func shape(_ statement: StoreStatement) -> String {
        let words = statement.sql.split(separator: " ")
        guard words.starts(with: ["INSERT", "INTO"]) else { return words.prefix(2).joined(separator: " ") }
        return "\(words[2]) x\(statement.sql.components(separatedBy: "), (").count)"
    }

    @Test func firstPushesAndTheirWakesAcrossEntriesAreTwoInserts() {
        // 16 entries, each a push that woke its app and whose wake ended: what each device's
        // first push writes. One at a time, that is 48 statements.
        let entries: [[StoreChange]] = (1...16 as ClosedRange<UInt64>).map { id in
            [.insertPush(PushStoreTests.push(id)), .insertWake(Self.wake(id)), .finishWake(id: id, finishedAt: 1_500, result: .noData)]
        }
        let statements = Self.statements(entries)
        #expect(statements.map(Self.shape) == ["pushes x16", "wakes x16"])
        // The end is in the row: finished_at, result, reason bound where the columns are.
        let columns = StoreChange.wakeColumns.count
        let third = Array(statements[1].arguments[(2 * columns)..<(3 * columns)])
        #expect(third == StoreChange.wakeValues(Self.wake(3, result: .noData), finishedAt: 1_500).map(\.storeValue))
        #expect(statements[1].arguments.count == 16 * columns)
    }

    @Test func aWakeInsertedWithAResultKeepsItAndAnEarlierWakesEndIsAnUpdate() {
        let statements = Self.statements([
            [.insertWake(Self.wake(1, result: .newData)), .finishWake(id: 1, finishedAt: 9_000, result: .failed(reason: "x"))],
            [.finishWake(id: 7, finishedAt: 9_000, result: .noData)],
        ])
        #expect(statements.map(Self.shape) == ["UPDATE wakes", "wakes x1"])
        #expect(statements[1].arguments == StoreChange.wakeValues(Self.wake(1, result: .newData), finishedAt: 2_000).map(\.storeValue))
    }

    @Test func anyOtherChangeKeepsItsPlaceAfterWhatCameBefore() {
        let statements = Self.statements([
            [.insertPush(PushStoreTests.push(1)), .insertWake(Self.wake(1))],
            [.setFate(push: 1, fate: .expired, generation: nil), .finishWake(id: 1, finishedAt: 5_000, result: .noData)],
            [.insertPush(PushStoreTests.push(2))],
        ])
        #expect(statements.map(Self.shape) == ["pushes x1", "wakes x1", "UPDATE pushes", "UPDATE wakes", "pushes x1"])
    }

    @Test func longRunsAreSplitAtTheInsertsRowLimit() {
        let count = PostgresEngine.rowsPerInsert * 2 + 3
        let entries: [[StoreChange]] = (1...UInt64(count)).map { [.insertWake(Self.wake($0)), .insertPush(PushStoreTests.push($0))] }
        let shapes = Self.statements(entries).map(Self.shape)
        let full = PostgresEngine.rowsPerInsert
        #expect(shapes == ["wakes x\(full)", "pushes x\(full)", "wakes x\(full)", "pushes x\(full)", "pushes x3", "wakes x3"])
    }
}
