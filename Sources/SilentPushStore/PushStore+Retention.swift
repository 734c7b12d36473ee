import SilentPushCore

/// Pruning (`--retain`, `--retain-pushes`) in small batches: what goes is read, then removed in
/// one short transaction beside the group commit; and incremental vacuum to give the space back.
extension PushStore {
    /// What one pruning batch removed.
    package struct Pruned: Sendable, Equatable {
        package var pushes = 0
        package var wakes = 0
        package var taskRuns = 0
        package var taskRequests = 0
        package var broadcasts = 0
        /// Live Activities dismissed before the cutoff, and update decisions made before it.
        package var activities = 0
        package var activityUpdates = 0
        /// Fetched bodies no content row names any more, deleted.
        package var contentBodies = 0
        /// Background transfers ended (and handed over, or never to be) whose rows were
        /// deleted; the caller deletes their files.
        package var transfers: [TransferRecord] = []
        /// Pushes looked at, pruned or kept: a batch that looked at `batch` may have more after.
        package var examined = 0
        /// The last push id looked at: the next batch starts after it.
        package var lastExamined: Int64 = 0

        package init() {}

        /// Rows removed in all.
        package var total: Int {
            pushes + wakes + taskRuns + taskRequests + broadcasts + activities + activityUpdates + transfers.count + contentBodies
        }
    }

    /// Prunes what a batch of `batch` pushes (after id `after`) holds that is older than
    /// `cutoff` (device time, ms) or past the newest `maximumCount`, with the finished wakes
    /// that delivered them; and up to `batch` finished task runs and requests, and broadcasts
    /// (but those `keptBroadcasts` names, by id: a channel keeps them), by the same rules; and,
    /// by age alone, up to `batch` Live Activity update decisions and dismissed activities.
    /// A pending push stays when it is one of `held` (the device holds it), and so does
    /// a delivered one whose wake still runs. By age alone (not past the count limit), a push
    /// whose wake started after `cutoff` stays with that wake, and one coalesced while its
    /// successor waits stays until that successor's fate is its own (the wake it rides). No push from id `before` on (when given) is examined: `held` was read
    /// before it arrived. A pending task request stays. Up to `batch` background transfers that ended go by the same rules (by when they were handed
    /// over), but those whose relaunch has not run yet; the caller deletes their files.
    ///
    /// Pushes are found by id, which follows arrival: the count limit keeps ids past
    /// `max(id) - maximumCount`, and the age limit is found by a binary search of
    /// `received_at` over ids, so a batch reads only the rows it examines.
    package func prune(
        olderThan cutoff: Int64?, maximumCount: Int?, held: Set<UInt64> = [], keptBroadcasts: Set<UInt64> = [], before: Int64? = nil,
        after: Int64 = 0, batch: Int
    ) async throws -> Pruned {
        guard cutoff != nil || maximumCount != nil, batch > 0 else {
            var nothing = Pruned()
            nothing.lastExamined = after
            return nothing
        }
        // What goes is read first, then removed in one transaction beside the group commit:
        // rows only arrive with higher ids, and a push examined here changes its fate only
        // from pending (kept, when held) to delivered or coalesced (either goes).
        var pruned = Pruned()
        pruned.lastExamined = after
        let clustered = isClustered
        var deletes: [(statement: StoreStatement, count: WritableKeyPath<Pruned, Int>)] = []
        var transfersRead: [TransferRecord] = []
        var transferDeletes: [StoreStatement] = []
        if let found = try await boundaries(of: "pushes", time: "received_at", maximumCount: maximumCount, cutoff: cutoff) {
            let boundary = before.map { min(found.either, $0 &- 1) } ?? found.either
            // Past the count limit a push goes whatever its wake's age; the age limit alone
            // keeps one whose wake is recent.
            let countBoundary = found.count
            // With each push, when the wake it rode started: a push kept waiting past the age
            // limit and delivered since stays with its wake, which is new.
            let rows = try await reader.rows(
                """
                SELECT push_fates.id AS id, push_fates.fate AS fate, push_fates.wake_id AS wake_id, push_fates.push_type AS push_type,
                    wakes.started_at AS woke_at
                FROM push_fates LEFT JOIN wakes ON wakes.id = push_fates.wake_id
                WHERE push_fates.id > ? AND push_fates.id <= ? ORDER BY push_fates.id LIMIT ?
                """, [after, boundary, batch], cached: true)
            pruned.examined = rows.count
            pruned.lastExamined = rows.last?["id"] ?? after
            var newestWake: Int64?
            var kept = Set<Int64>()
            for row in rows {
                let id: Int64 = row["id"]
                let fate = StoredFate(fate: row["fate"], wakeID: row["wake_id"], reason: nil).fate
                let wokeAt: Int64? = row["woke_at"]
                let wokeRecently =
                    (countBoundary.map { id > $0 } ?? true) && (cutoff.map { cutoff in wokeAt.map { $0 >= cutoff } ?? false } ?? false)
                switch fate.kind {
                // Clustered, other receivers hold pushes too: every pending push stays.
                case .pending where clustered || held.contains(UInt64(bitPattern: id)):
                    kept.insert(id)
                case .delivered where held.contains(UInt64(bitPattern: id)):
                    kept.insert(id)  // its wake still runs
                case .delivered where wokeRecently, .coalesced where wokeRecently:
                    kept.insert(id)  // its wake is within the age limit
                // A Live Activity update coalesced is settled: no wake ever takes it.
                case .coalesced
                where fate.wakeID == nil && (countBoundary.map { id > $0 } ?? true)
                    && row["push_type"] as String? != APNsPushType.liveactivity.rawValue:
                    kept.insert(id)  // its successor waits: it goes with the wake it rides
                case .delivered, .coalesced:
                    if let wake = fate.wakeID { newestWake = max(newestWake ?? Int64(bitPattern: wake), Int64(bitPattern: wake)) }
                default:
                    break
                }
            }
            // Range deletes (the rows are next to each other) around the few kept.
            deletes += Self.rangeDeletes(from: "pushes", after: after, ids: rows.map { $0["id"] }, keeping: kept.contains).map { ($0, \.pushes) }
            // The wakes that delivered them go too, once finished and once the push each
            // delivered is gone; a coalesced push's wake goes with the push it delivered.
            // A wake within the age limit goes only with a push past the count limit (with no
            // age limit every wake is old enough; with no count limit no push is past it).
            if let newestWake {
                deletes.append(
                    (
                        StoreStatement(
                            "DELETE FROM wakes WHERE id <= ? AND finished_at IS NOT NULL AND push_id <= ? AND (started_at < ? OR push_id <= ?)",
                            [newestWake, pruned.lastExamined, cutoff ?? .max, countBoundary ?? .min]),
                        \.wakes
                    ))
            }
        }
        if let boundary = try await boundary(of: "task_runs", time: "started_at", maximumCount: maximumCount, cutoff: cutoff) {
            deletes.append(
                (
                    StoreStatement(
                        """
                        DELETE FROM task_runs WHERE id IN
                            (SELECT id FROM task_runs WHERE id <= ? AND finished_at IS NOT NULL ORDER BY id LIMIT ?)
                        """, [boundary, batch]), \.taskRuns
                ))
        }
        if let boundary = try await boundary(of: "task_requests", time: "submitted_at", maximumCount: maximumCount, cutoff: cutoff) {
            deletes.append(
                (
                    StoreStatement(
                        """
                        DELETE FROM task_requests WHERE id IN
                            (SELECT id FROM task_requests WHERE id <= ? AND state != 'pending' ORDER BY id LIMIT ?)
                        """, [boundary, batch]), \.taskRequests
                ))
        }
        if let boundary = try await boundary(of: "broadcasts", time: "received_at", maximumCount: maximumCount, cutoff: cutoff) {
            if keptBroadcasts.isEmpty {
                deletes.append(
                    (
                        StoreStatement(
                            "DELETE FROM broadcasts WHERE id IN (SELECT id FROM broadcasts WHERE id <= ? ORDER BY id LIMIT ?)", [boundary, batch]),
                        \.broadcasts
                    ))
            } else {
                // A message a channel keeps stays (a restart reads it back): read as many more
                // as are kept, then range deletes around the kept, as for pushes, of `batch`
                // rows at most (a full batch tells the pruner to go on).
                let rows = try await reader.rows(
                    "SELECT id FROM broadcasts WHERE id <= ? ORDER BY id LIMIT ?", [boundary, batch + keptBroadcasts.count], cached: true)
                deletes += Self.rangeDeletes(from: "broadcasts", after: .min, ids: rows.map { $0["id"] }, limit: batch) {
                    keptBroadcasts.contains(UInt64(bitPattern: $0))
                }.map { ($0, \.broadcasts) }
            }
        }
        // Transfers that ended, unless a relaunch will still hand their files over: not asked
        // for yet (another transfer of the session has not ended, or the receiver stopped
        // before it asked), pending, or running. The same test guards the delete, so a row
        // that changed since it was read stays, and only the rows deleted lose their files.
        if let boundary = try await boundary(of: "transfers", time: "handed_over_at", maximumCount: maximumCount, cutoff: cutoff) {
            let ended = try await reader.rows(
                "SELECT * FROM transfers WHERE id <= ? AND \(Self.transferGoes) ORDER BY id LIMIT ?", [boundary, batch], cached: true
            ).compactMap(Self.transfer)
            transfersRead = ended
            transferDeletes = ended.map { StoreStatement("DELETE FROM transfers WHERE id = ? AND \(Self.transferGoes)", [Int64(bitPattern: $0.id)]) }
        }
        // Live Activities by age only (the count limit is about pushes): the decisions
        // made before the cutoff, and the activities dismissed before it.
        if let cutoff {
            deletes.append(
                (
                    StoreStatement(
                        "DELETE FROM activity_updates WHERE seq IN (SELECT seq FROM activity_updates WHERE at < ? ORDER BY seq LIMIT ?)",
                        [cutoff, batch]),
                    \.activityUpdates
                ))
            deletes.append(
                (
                    StoreStatement(
                        "DELETE FROM activities WHERE id IN (SELECT id FROM activities WHERE state = 'dismissed' AND dismiss_at < ? ORDER BY id LIMIT ?)",
                        [cutoff, batch]), \.activities
                ))
        }
        guard !deletes.isEmpty || !transferDeletes.isEmpty else { return pruned }
        // Ids number on past the rows deleted: the floors are recorded first, in the same
        // transaction.
        // (Clustered, ids come from the cluster's sequence: no floor is needed, and none is
        // locked by every member's passes.)
        let floors = clustered ? [] : Self.numberedTables.map(Self.recordingIDFloor)
        let changed = try await engine.execute(floors + deletes.map(\.statement) + transferDeletes).dropFirst(floors.count)
        for (delete, count) in zip(deletes, changed) { pruned[keyPath: delete.count] += count }
        // The transfers' deletes come last, one a row, in the order read.
        pruned.transfers = zip(transfersRead, changed.dropFirst(deletes.count)).filter { $0.1 == 1 }.map(\.0)
        return pruned
    }

    /// Deletes from `table` of the rows `ids` names (ascending, every row after `after` up to
    /// the last of them) but those `kept` names, `limit` rows at most: one range `(from,
    /// through]` for each run of rows that go. One statement text whatever the ids: SQLite's
    /// writer keeps every text it runs prepared, so none may name the ids it keeps.
    static func rangeDeletes(
        from table: String, after: Int64, ids: [Int64], limit: Int = .max, keeping kept: (Int64) -> Bool
    ) -> [StoreStatement] {
        var statements: [StoreStatement] = []
        var from = after
        var last: Int64?
        var going = 0
        func deleteRun() {
            if let through = last { statements.append(StoreStatement("DELETE FROM \(table) WHERE id > ? AND id <= ?", [from, through])) }
            last = nil
        }
        for id in ids {
            if kept(id) {
                deleteRun()
                from = id
                continue
            }
            last = id
            going += 1
            if going == limit { break }
        }
        deleteRun()
        return statements
    }

    /// Whether a `transfers` row may go: it ended, and no relaunch will hand its file over
    /// (one done with no file fate keeps it while its session's relaunch is not asked for yet,
    /// and the session sends launch events, or while that relaunch's request is pending or its
    /// run running); nor while another transfer of its session has not ended.
    static let transferGoes = """
        finished_at IS NOT NULL
            AND NOT (state = 'done' AND file_fate IS NULL AND (
                (relaunch_request IS NULL AND launch_events = 1)
                OR (relaunch_request IS NOT NULL AND (
                    EXISTS (SELECT 1 FROM task_requests
                        WHERE task_requests.id = transfers.relaunch_request AND task_requests.state = 'pending')
                    OR EXISTS (SELECT 1 FROM task_runs
                        WHERE task_runs.request_id = transfers.relaunch_request AND task_runs.finished_at IS NULL)))))
            AND NOT EXISTS (SELECT 1 FROM transfers AS sibling
                WHERE sibling.device_token = transfers.device_token AND sibling.topic = transfers.topic
                    AND sibling.session = transfers.session AND sibling.finished_at IS NULL)
        """

    /// How many statements SQLite's writer holds prepared (nil on PostgreSQL, which keeps
    /// none): a number that must not grow with what pruning keeps.
    package func preparedWriteStatements() async throws -> Int? {
        try await (engine as? SQLiteEngine)?.preparedStatementCount()
    }

    /// The highest id of `table` that may go: past the count limit, or (by a
    /// binary search over ids, whose `time` column rises with them) older than `cutoff`.
    /// Nil when nothing goes.
    private func boundary(of table: String, time: String, maximumCount: Int?, cutoff: Int64?) async throws -> Int64? {
        try await boundaries(of: table, time: time, maximumCount: maximumCount, cutoff: cutoff)?.either
    }

    /// The last id past either limit (`either`), and the last past the count limit alone
    /// (`count`; nil without one, or when no row is past it).
    private func boundaries(of table: String, time: String, maximumCount: Int?, cutoff: Int64?) async throws -> (either: Int64, count: Int64?)? {
        // Two queries: SQLite finds a lone min() or max() in the index, but both in one
        // SELECT scan the table.
        guard let low: Int64? = try await reader.rows("SELECT min(id) AS id FROM \(table)", cached: true).first?["id"],
            let high: Int64? = try await reader.rows("SELECT max(id) AS id FROM \(table)", cached: true).first?["id"],
            let low, let high
        else { return nil }
        var boundary: Int64?
        var count: Int64?
        if let maximum = maximumCount {
            if isClustered {
                // Each receiver numbers from blocks of its own: ids are not dense, so the
                // boundary is counted, not subtracted.
                let kept: Int64? = try await reader.rows("SELECT id FROM \(table) ORDER BY id DESC LIMIT 1 OFFSET ?", [maximum]).first?["id"]
                boundary = kept
            } else {
                let (kept, overflow) = high.subtractingReportingOverflow(Int64(maximum))
                if !overflow, kept >= low { boundary = kept }
            }
            count = boundary
        }
        if let cutoff {
            // The last id whose row is older than the cutoff: rows from `low` to it are.
            let next = "SELECT id, \(time) AS at FROM \(table) WHERE id >= ? ORDER BY id LIMIT 1"
            var (lower, upper) = (low, high)
            var found: Int64?
            // Ids are whatever the table holds (a row edited by hand, a bit pattern past 2^63
            // read back negative): the search moves by wrapping steps it checks itself.
            while lower <= upper {
                let middle = lower &+ Int64(bitPattern: UInt64(bitPattern: upper &- lower) / 2)
                guard let probe = try await reader.rows(next, [middle], cached: true).first, let id = probe["id"] as Int64?,
                    let at = probe["at"] as Int64?
                else { break }
                if at < cutoff {
                    found = id
                    guard id < .max else { break }
                    lower = id + 1
                } else {
                    guard middle > .min else { break }
                    upper = middle - 1
                }
            }
            if let found { boundary = max(boundary ?? found, found) }
        }
        return boundary.map { ($0, count) }
    }

    /// Gives up to `pages` pages of free space back to the file system, while more than an
    /// eighth of the file is free (SQLite; PostgreSQL's autovacuum does it itself). Returns the
    /// pages still to give back (0 too when none could be).
    package func vacuumIncrementally(pages: Int) async throws -> Int {
        try await engine.vacuumIncrementally(pages: pages)
    }

    /// Checkpoints beside the writer, so the WAL that pruning wrote is copied into the
    /// database and the file cut back, even when no push comes to trigger one.
    package func checkpointAndTruncate() async {
        await engine.checkpoint()
    }

    /// Bytes the database takes on disk (a SQLite file's pages in use and free, not the WAL;
    /// PostgreSQL's database size).
    package func databaseSize() async throws -> Int {
        try await engine.size()
    }
}
