import SilentPushCore

/// A batch as PostgreSQL statements: as few as keep its meaning. postgres-nio runs one
/// statement at a time on a session (each a round trip: a write, the server's parse, plan and
/// answer, a read), so a commit costs about one round trip per statement, not per row.
extension PostgresEngine {
    /// `batch`'s changes as statements, in an order with the same outcome:
    ///
    /// - Inserted pushes and inserted wakes each gather into inserts of up to `rowsPerInsert`
    ///   rows, across entries. The two commute: each touches only its own table, and neither
    ///   table has triggers or foreign keys.
    /// - A wake's end, while its insert is still gathered, is folded into that row (as its
    ///   `UPDATE … WHERE result IS NULL` would do it: a wake inserted with a result keeps
    ///   it). The end of any other wake is an update at once: it names a row that is not
    ///   gathered, so the gathered inserts commute with it.
    /// - Any other change first sends what is gathered, then its own statements: it keeps its
    ///   place against every insert before it.
    static func statements(_ batch: [StoreWriter.Entry]) -> [StoreStatement] {
        var statements: [StoreStatement] = []
        var pushes: [PushRecord] = []
        var wakes: [WakeRow] = []
        /// Sends `rows` gathered as one insert of them all.
        func send<Row>(_ rows: inout [Row], _ sql: (Int) -> String, columns: Int, _ values: (Row) -> [any StoreValueConvertible]) {
            guard !rows.isEmpty else { return }
            var bound: [any StoreValueConvertible] = []
            bound.reserveCapacity(rows.count * columns)
            for row in rows { bound += values(row) }
            statements.append(StoreStatement(sql(rows.count), bound))
            rows.removeAll(keepingCapacity: true)
        }
        func sendPushes() { send(&pushes, StoreChange.insertPushesSQL, columns: StoreChange.pushColumns.count, StoreChange.pushValues) }
        func sendWakes() { send(&wakes, StoreChange.insertWakesSQL, columns: StoreChange.wakeColumns.count) { $0.values } }
        for entry in batch {
            for change in entry.changes {
                switch change {
                case .insertPush(let push):
                    pushes.append(push)
                    if pushes.count == rowsPerInsert { sendPushes() }
                case .insertWake(let wake):
                    wakes.append(WakeRow(wake))
                    if wakes.count == rowsPerInsert { sendWakes() }
                case .finishWake(let id, let finishedAt, let result):
                    // At most `rowsPerInsert` gathered: a scan, and no index beside them to keep.
                    if let index = wakes.lastIndex(where: { $0.wake.id == id }) {
                        wakes[index].finish(at: finishedAt, result)
                    } else {
                        statements += change.statements
                    }
                default:
                    sendPushes()
                    sendWakes()
                    statements += change.statements
                }
            }
        }
        sendPushes()
        sendWakes()
        return statements
    }

    /// A wake's row while it is gathered: its end is folded in before it is sent.
    private struct WakeRow {
        var wake: WakeRecord
        /// When it ended, in ms as `finishWake` has it (not through `DeviceInstant`, which
        /// would hold a time past 2262 at its end: the row is what the update would write).
        var finishedAt: Int64?

        init(_ wake: WakeRecord) {
            self.wake = wake
            finishedAt = wake.finishedAt?.millisecondsSinceEpoch
        }

        /// Ends the wake unless it has a result already (`finishWakeSQL`'s `result IS NULL`).
        mutating func finish(at instant: Int64, _ result: FetchResult) {
            guard wake.result == nil else { return }
            finishedAt = instant
            wake.result = result
        }

        var values: [any StoreValueConvertible] { StoreChange.wakeValues(wake, finishedAt: finishedAt) }
    }
}
