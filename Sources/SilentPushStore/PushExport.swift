import GRDB
import SilentPushCore

/// Every push a ``PushQuery`` matches (its `limit` aside), newest first, a page at a time,
/// with fates as every reader reports them. Paging newest first, it keeps the ids the rows
/// already read say they replaced (a push replaces only older ones), so it never reads a row
/// twice: a million pushes cost a million row reads, and it holds at most one id per chain
/// of replaced pushes still open below the page (about one per app).
public struct PushExport: Sendable {
    private let store: PushStore
    private let query: PushQuery
    private var before: Int64?
    private var replaced: Set<Int64> = []
    private var finished = false

    /// An export of what `query` matches.
    public init(_ store: PushStore, query: PushQuery) {
        self.store = store
        self.query = query
        before = query.before.map { Int64(bitPattern: min($0, UInt64(Int64.max))) }
    }

    /// The next matches from up to `pageSize` rows read; nil once every row is read. A page
    /// may match none and still not be the last.
    public mutating func next(pageSize: Int) throws -> [PushRecord]? {
        guard !finished else { return nil }
        // The same device and topic filter as the slot: a push's replacer is in the same app.
        // `until` and the fate are checked after the fate is known: a push outside them may
        // still name one it replaced.
        let rows = try store.database.read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM pushes WHERE (?1 IS NULL OR device_token = ?1) AND (?2 IS NULL OR topic = ?2)
                            AND (?3 IS NULL OR received_at >= ?3) AND (?4 IS NULL OR id < ?4)
                        ORDER BY id DESC LIMIT ?5
                        """),
                arguments: [query.deviceToken, query.topic, query.from, before, pageSize])
        }
        if rows.count < pageSize { finished = true }
        guard let last = rows.last else { return nil }
        before = last["id"]
        var matches: [PushRecord] = []
        let pending = PushFate.Kind.pending.rawValue
        for row in rows {
            let id: Int64 = row["id"]
            let replacedLater = replaced.remove(id) != nil && (row["fate"] as String) == pending
            if let target = row["replaced"] as Int64? { replaced.insert(target) }
            let push = PushStore.push(row, replacedLater: replacedLater)
            if let until = query.until, push.receivedAt >= until { continue }
            if let fate = query.fate, push.fate.kind != fate { continue }
            matches.append(push)
        }
        return matches
    }
}
