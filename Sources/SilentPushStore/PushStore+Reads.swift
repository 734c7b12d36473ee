import Foundation
import SilentPushCore

extension PushStore {
    /// The push with this `apns-id` (the latest, when a provider reused one).
    package func push(apnsID: String) async throws -> PushRecord? {
        let key = Self.apnsKey(apnsID)
        // By the id the apns-id carries, or by its key; the latest when both match. A UUID's
        // case is not part of it (the key's hex digits are read either way).
        return try await reader.rows(
            """
                SELECT * FROM (SELECT * FROM push_fates WHERE id = ?1 AND LOWER(apns_id) = ?3
                    UNION ALL SELECT * FROM push_fates WHERE apns_key = ?2 AND LOWER(apns_id) = ?3) AS matches
                ORDER BY id DESC LIMIT 1
            """, [key.pushID.map { Int64(bitPattern: $0) }, key.value, apnsID.lowercased()]
        ).first.map(Self.push)
    }

    /// The push APNs answered with this `apns-unique-id` (development environment), found by
    /// the id it carries and checked against the push's apns-id.
    package func push(uniqueID: String) async throws -> PushRecord? {
        let text = uniqueID.lowercased()
        guard let pushID = Self.apnsKey(text).pushID else { return nil }
        let record = try await push(id: pushID)
        guard let record, APNsIDGenerator.uniqueID(apnsID: record.apnsID, pushID: record.id) == text else { return nil }
        return record
    }

    /// Pushes, newest first, for a device and/or topic.
    package func pushes(deviceToken: String? = nil, topic: String? = nil, limit: Int = 100) async throws -> [PushRecord] {
        try await pushes(PushQuery(deviceToken: deviceToken, topic: topic, limit: limit))
    }

    /// The pushes `query` asks for, newest first.
    package func pushes(_ query: PushQuery) async throws -> [PushRecord] {
        try await reader.rows(Self.pushesStatement(query), cached: false).map(Self.push)
    }

    /// The statement `pushes(_:)` reads.
    package static func pushesStatement(_ query: PushQuery) -> StoreStatement {
        var filter = Filter()
        filter.add("device_token = ?", query.deviceToken)
        filter.add("topic = ?", query.topic)
        filter.add("received_at >= ?", query.from)
        filter.add("received_at < ?", query.until)
        filter.add("id < ?", query.before.map { Int64(bitPattern: min($0, UInt64(Int64.max))) })
        filter.add("fate = ?", query.fate?.rawValue)
        return StoreStatement("SELECT * FROM push_fates \(filter.clause) ORDER BY id DESC LIMIT ?", filter.arguments + [max(0, query.limit)])
    }

    /// A read's `WHERE`, written with only the conditions given: a `? IS NULL OR …` term for
    /// one not given keeps SQLite from seeking by it, so a page after a cursor would read every
    /// row from the newest down (`docs/benchmarks.md`, the admin API on a million pushes).
    struct Filter {
        private var conditions: [String] = []
        private(set) var arguments: [any StoreValueConvertible] = []

        /// `condition` (one `?`) with `value`, when there is one.
        mutating func add(_ condition: String, _ value: (any StoreValueConvertible)?) {
            guard let value else { return }
            conditions.append(condition)
            arguments.append(value)
        }

        /// `WHERE` and the conditions, or nothing.
        var clause: String { conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ") }
    }

    /// Pushes still `pending`: what a restarted receiver puts back in the slots, one per app.
    /// Reads the whole table (at start-up, and when a cluster member claims a shard: an index
    /// on the fate would cost every push two writes).
    package func pendingPushes() async throws -> [PushRecord] {
        try await reader.rows("SELECT * FROM push_fates WHERE fate = ? ORDER BY id", [PushFate.Kind.pending.rawValue]).map(Self.push)
    }

    /// Each push replaced in its slot whose wake has not started (fate `coalesced`, no wake
    /// yet), by id, with the push it replaced in turn: a restarted receiver counts, back along
    /// each pending push's chain, how many ride its wake. Reads the whole table, when
    /// `pendingPushes` does.
    package func coalescedWaiting() async throws -> [(id: UInt64, replaced: UInt64?)] {
        try await reader.rows("SELECT id, replaced FROM push_fates WHERE fate = ? AND wake_id IS NULL", [PushFate.Kind.coalesced.rawValue]).map {
            row in
            let replaced: Int64? = row["replaced"]
            return (UInt64(bitPattern: row["id"]), replaced.map { UInt64(bitPattern: $0) })
        }
    }

    /// Wakes, newest first, for a device and/or topic, of one kind or all, started at or after
    /// `from` and before `until` (device-clock ms) when given.
    package func wakes(
        deviceToken: String? = nil, topic: String? = nil, kind: WakeKind? = nil, from: Int64? = nil, until: Int64? = nil, before: UInt64? = nil,
        limit: Int = 100
    ) async throws -> [WakeRecord] {
        var filter = Filter()
        filter.add("wakes.device_token = ?", deviceToken)
        filter.add("wakes.topic = ?", topic)
        filter.add("wakes.id < ?", before.map { Int64(bitPattern: min($0, UInt64(Int64.max))) })
        filter.add("wakes.kind = ?", kind?.rawValue)
        filter.add("wakes.started_at >= ?", from)
        filter.add("wakes.started_at < ?", until)
        return try await reader.rows(
            """
            SELECT wakes.*, pushes.apns_id AS apns_id FROM wakes LEFT JOIN pushes ON pushes.id = wakes.push_id \(filter.clause)
            ORDER BY wakes.id DESC LIMIT ?
            """, filter.arguments + [max(0, limit)]
        ).map(Self.wake)
    }

    /// The wake with this id.
    package func wake(id: UInt64) async throws -> WakeRecord? {
        try await reader.rows(
            "SELECT wakes.*, pushes.apns_id AS apns_id FROM wakes LEFT JOIN pushes ON pushes.id = wakes.push_id WHERE wakes.id = ?",
            [Int64(bitPattern: id)]
        ).first.map(Self.wake)
    }

    private static func wake(_ row: StoreRow) -> WakeRecord {
        WakeRecord(
            id: UInt64(bitPattern: row["id"]), deviceToken: row["device_token"], topic: row["topic"],
            pushID: UInt64(bitPattern: row["push_id"]), generation: UInt32(truncatingIfNeeded: row["generation"] as Int64),
            startedAt: DeviceInstant(millisecondsSinceEpoch: row["started_at"]),
            deadline: DeviceInstant(millisecondsSinceEpoch: row["deadline"]),
            finishedAt: (row["finished_at"] as Int64?).map(DeviceInstant.init(millisecondsSinceEpoch:)),
            result: StoredResult.read(result: row["result"], reason: row["reason"]),
            apnsID: row.hasColumn("apns_id") ? row["apns_id"] : nil, errorOutput: row.hasColumn("stderr") ? row["stderr"] : nil,
            kind: (row["kind"] as String?).flatMap(WakeKind.init(rawValue:)) ?? .fetch)
    }

    /// A stored budget, held in range (the file may have been edited).
    private static func budget(_ value: Int64?) -> Int? {
        value.map { Int(min(max($0, 0), 1_000_000_000)) }
    }

    /// Every device whose state was set.
    package func devices() async throws -> [String: DeviceState] {
        try await deviceRecords().mapValues(\.state)
    }

    /// A page of the devices known, in token order from after `cursor` (nil: the first),
    /// `limit` at most: those with an app the device side knows (`apps`: `StoreChange.knowApp`,
    /// or its usage set; retention never prunes it), each with its apps' bundle ids, and
    /// those whose state was set or token registered (`devices`), read by index from the
    /// cursor on. Every receiver lists devices from here, clustered or not.
    package func knownDevices(after cursor: String?, limit: Int) async throws -> [(token: String, topics: Set<String>)] {
        let after = cursor ?? "", limit = max(limit, 1)
        let tokens: [String] = try await reader.rows(
            """
            SELECT device_token FROM (SELECT DISTINCT device_token FROM apps WHERE device_token > ? ORDER BY device_token LIMIT ?) AS known
            UNION SELECT device_token FROM (SELECT device_token FROM devices WHERE device_token > ? ORDER BY device_token LIMIT ?) AS stated
            ORDER BY device_token LIMIT ?
            """, [after, limit, after, limit, limit], cached: true
        ).map { $0["device_token"] }
        guard let first = tokens.first, let last = tokens.last else { return [] }
        var topics: [String: Set<String>] = [:]
        for row in try await reader.rows(
            "SELECT device_token, topic FROM apps WHERE device_token >= ? AND device_token <= ?", [first, last], cached: true)
        {
            topics[row["device_token"], default: []].insert(row["topic"])
        }
        return tokens.map { ($0, topics[$0] ?? []) }
    }

    /// Every device whose state was set, with when its token was unregistered (ms), if it is,
    /// and the topics it was registered for at run time, if it was (none: any).
    package func deviceRecords() async throws -> [String: (state: DeviceState, unregisteredAt: Int64?, registeredTopics: [String]?)] {
        var devices: [String: (state: DeviceState, unregisteredAt: Int64?, registeredTopics: [String]?)] = [:]
        for row in try await reader.rows("SELECT * FROM devices") {
            let state = DeviceState(
                forceQuit: row["force_quit"], backgroundRefresh: row["background_refresh"],
                lowPowerMode: row["low_power_mode"], dailyBudget: Self.budget(row["daily_budget"]),
                batteryLevel: Int(clamping: min(max(row["battery_level"] as Int64, 0), 100)), charging: row["charging"],
                thermalState: ThermalState(rawValue: row["thermal_state"]) ?? .nominal, debuggerAttached: row["debugger_attached"],
                network: DeviceState.Network(rawValue: row["network"]) ?? .online, idle: row["idle"],
                networkType: DeviceState.NetworkType(rawValue: row["network_type"]) ?? .wifi)
            let topics: String? = row["registered_topics"]
            devices[row["device_token"]] = (state, row["unregistered_at"], topics.map { $0.split(separator: "\n").map(String.init) })
        }
        return devices
    }

    /// Every broadcast channel, in every environment; a row this version cannot read (an
    /// unknown environment or policy) is skipped.
    package func channels() async throws -> [BroadcastChannel] {
        try await reader.rows("SELECT * FROM channels ORDER BY created_at, id").compactMap { row -> BroadcastChannel? in
            guard let environment = APNsEnvironment(rawValue: row["environment"]),
                let policy = MessageStoragePolicy(rawValue: row["storage_policy"]), let id = ChannelID(header: row["id"])
            else { return nil }
            return BroadcastChannel(
                id: id, bundleID: row["bundle_id"], environment: environment, configuration: ChannelConfiguration(storagePolicy: policy),
                createdAt: row["created_at"])
        }
    }

    /// The apns-ids of the pushes coalesced into wake `wakeID`, oldest first.
    package func coalescedAPNsIDs(wakeID: UInt64) async throws -> [String] {
        try await reader.rows(Self.coalesced(into: wakeID), cached: true).map { $0["apns_id"] }
    }

    /// The pushes coalesced into each of `wakeIDs`, oldest first: each one's apns-id and id
    /// (which, with the apns-id, makes its apns-unique-id: a provider may reuse an apns-id).
    package func coalescedPushes(wakeIDs: [UInt64]) async throws -> [UInt64: [(apnsID: String, pushID: UInt64)]] {
        var coalesced: [UInt64: [(apnsID: String, pushID: UInt64)]] = [:]
        // A hundred at a time: with a thousand, SQLite judges a scan of every push cheaper
        // than the index on wake_id (`docs/benchmarks.md`).
        var start = 0
        while start < wakeIDs.count {
            let chunk = wakeIDs[start..<min(start + Self.wakesPerCoalescedRead, wakeIDs.count)]
            start = chunk.endIndex
            for row in try await reader.rows(Self.coalescedStatement(wakeIDs: chunk), cached: false) {
                coalesced[UInt64(bitPattern: row["wake_id"] as Int64), default: []].append((row["apns_id"], UInt64(bitPattern: row["id"] as Int64)))
            }
        }
        return coalesced
    }

    /// How many wakes one read of their coalesced pushes names.
    package static let wakesPerCoalescedRead = 100

    /// The read of the pushes coalesced into `wakeIDs`.
    package static func coalescedStatement(wakeIDs: some Collection<UInt64>) -> StoreStatement {
        // Whole numbers only: the list is safe to write into the statement.
        let list = wakeIDs.map { String(Int64(bitPattern: $0)) }.joined(separator: ",")
        return StoreStatement(
            "SELECT wake_id, id, apns_id FROM push_fates WHERE wake_id IN (\(list)) AND fate = ? ORDER BY id", [PushFate.Kind.coalesced.rawValue])
    }

    /// What a wake delivers, read in one transaction: its push (nil if missing) and the
    /// apns-ids coalesced into it. (Every wake that waited for a fetch slot reads these.)
    package func delivery(push id: UInt64, wakeID: UInt64) async throws -> (push: PushRecord, coalesced: [String])? {
        let read = try await reader.snapshot([Self.push(id: id), Self.coalesced(into: wakeID)])
        guard let push = read.first?.first.map(Self.push) else { return nil }
        return (push, read.last?.map { $0["apns_id"] } ?? [])
    }

    private func push(id: UInt64) async throws -> PushRecord? {
        try await reader.rows(Self.push(id: id), cached: true).first.map(Self.push)
    }

    // Run by every wake that waited for a fetch slot: prepared once per reader connection.
    private static func push(id: UInt64) -> StoreStatement {
        StoreStatement("SELECT * FROM push_fates WHERE id = ?", [Int64(bitPattern: id)])
    }

    private static func coalesced(into wakeID: UInt64) -> StoreStatement {
        StoreStatement(
            "SELECT apns_id FROM push_fates WHERE wake_id = ? AND fate = ? ORDER BY id",
            [Int64(bitPattern: wakeID), PushFate.Kind.coalesced.rawValue])
    }

    /// When the user last opened each app whose usage was set (device-clock ms).
    package func appUsage() async throws -> [(deviceToken: String, topic: String, lastOpenedAt: Int64)] {
        try await reader.rows("SELECT device_token, topic, last_opened_at FROM apps WHERE last_opened_at IS NOT NULL").map {
            ($0["device_token"], $0["topic"], $0["last_opened_at"])
        }
    }

    /// Per app ever woken: its last wake's start (ms), whether that wake overran its deadline
    /// (the interval after it is doubled), and the highest slot generation a wake closed, so a
    /// restarted receiver keeps the minimum interval and numbers on.
    package func lastWakes() async throws -> [(deviceToken: String, topic: String, startedAt: Int64, overran: Bool, generation: UInt32)] {
        try await reader.rows(
            """
            SELECT device_token, topic, started_at, result, generation FROM (
                SELECT device_token, topic, started_at, result, MAX(generation) OVER (PARTITION BY device_token, topic) AS generation,
                    ROW_NUMBER() OVER (PARTITION BY device_token, topic ORDER BY started_at DESC, id DESC) AS n
                FROM wakes WHERE kind = ?1) AS last
            WHERE n = 1
            """, [WakeKind.fetch.rawValue]
        ).map { row in
            let overran = (row["result"] as String?).map { StoredResult(result: $0, reason: nil).fetchResult == .deadlineExceeded } ?? false
            return (row["device_token"], row["topic"], row["started_at"], overran, UInt32(truncatingIfNeeded: row["generation"] as Int64))
        }
    }

    /// Background launches since `since` (ms), oldest first: the apps' wakes, and their task
    /// runs the daily budget counts (not simulated, not continued), so a restarted receiver
    /// keeps each device's budget.
    /// `device`: only that device's (nil: every device's).
    package func launches(since: Int64, device: String? = nil) async throws -> [(deviceToken: String, topic: String, startedAt: Int64)] {
        // Only the conditions given: a term that is always true keeps SQLite off the index.
        let ofDevice = device == nil ? "" : " AND device_token = ?4"
        var arguments: [any StoreValueConvertible] = [WakeKind.fetch.rawValue, since, BackgroundTaskKind.continued.rawValue]
        if let device { arguments.append(device) }
        return try await reader.rows(
            """
            SELECT device_token, topic, started_at FROM wakes WHERE kind = ?1 AND started_at >= ?2\(ofDevice)
            UNION ALL
            SELECT device_token, topic, started_at FROM task_runs WHERE simulated = 0 AND kind != ?3 AND started_at >= ?2\(ofDevice)
            ORDER BY started_at
            """, arguments
        ).map { row in (row["device_token"], row["topic"], row["started_at"]) }
    }

    /// Per app: its last refresh task run's start (ms), not simulated: the app's interval runs
    /// from it as from a wake.
    package func lastRefreshRuns() async throws -> [(deviceToken: String, topic: String, startedAt: Int64)] {
        try await reader.rows(
            """
            SELECT device_token, topic, MAX(started_at) AS started_at FROM task_runs
            WHERE kind = ? AND simulated = 0 GROUP BY device_token, topic
            """, [BackgroundTaskKind.refresh.rawValue]
        ).map { row in (row["device_token"], row["topic"], row["started_at"]) }
    }

    /// Each app's last task run terminated (its expiration grace ran out) at or after `since`
    /// (ms): a restarted receiver keeps its task launches deferred for the rest of the penalty.
    package func lastTerminations(since: Int64) async throws -> [(deviceToken: String, topic: String, finishedAt: Int64)] {
        try await reader.rows(
            """
            SELECT device_token, topic, MAX(finished_at) AS finished_at FROM task_runs
            WHERE outcome = ? AND finished_at >= ? GROUP BY device_token, topic
            """, [TaskOutcome.terminated.rawValue, since]
        ).map { row in (row["device_token"], row["topic"], row["finished_at"]) }
    }

    /// Wakes with no result: they were running when the receiver stopped.
    package func unfinishedWakes() async throws -> [WakeRecord] {
        try await reader.rows("SELECT * FROM wakes WHERE result IS NULL AND kind = ? ORDER BY id", [WakeKind.fetch.rawValue]).map(Self.wake)
    }

    /// Widget and control reloads started after `since` (ms), oldest first: what a restarted
    /// receiver counts against each extension's daily budget.
    package func reloads(since: Int64) async throws -> [(deviceToken: String, topic: String, startedAt: Int64)] {
        try await reader.rows(
            // Spelled as the partial index `wakes_reloads` is, so that it serves.
            "SELECT device_token, topic, started_at FROM wakes WHERE kind != '\(WakeKind.fetch.rawValue)' AND started_at > ? ORDER BY id", [since]
        ).map { row in (row["device_token"], row["topic"], row["started_at"]) }
    }

    /// The latest device-clock time recorded (ms), so a manual clock restarts no earlier.
    package func latestDeviceTime() async throws -> Int64? {
        try await reader.rows(
            """
            SELECT MAX(t) FROM (SELECT MAX(received_at) AS t FROM pushes
                UNION ALL SELECT MAX(started_at) FROM wakes UNION ALL SELECT MAX(finished_at) FROM wakes
                UNION ALL SELECT manual_now FROM clock) AS times
            """
        ).first?[0]
    }

    /// The latest content for `deviceToken`, `topic` and `url`.
    package func content(deviceToken: String, topic: String, url: String) async throws -> ContentRecord? {
        try await reader.rows("SELECT * FROM contents WHERE device_token = ? AND topic = ? AND url = ?", [deviceToken, topic, url]).first.map(
            Self.content)
    }

    /// The latest contents, most recently fetched first, for a device and/or topic.
    package func contents(deviceToken: String? = nil, topic: String? = nil, limit: Int = 100) async throws -> [ContentRecord] {
        try await reader.rows(
            """
            SELECT * FROM contents WHERE (CAST(?1 AS TEXT) IS NULL OR device_token = ?1) AND (CAST(?2 AS TEXT) IS NULL OR topic = ?2)
            ORDER BY fetched_at DESC LIMIT ?3
            """, [deviceToken, topic, max(0, limit)]
        ).map(Self.content)
    }

    private static func content(_ row: StoreRow) -> ContentRecord {
        ContentRecord(
            deviceToken: row["device_token"], topic: row["topic"], url: row["url"], etag: row["etag"],
            lastModified: row["last_modified"], contentType: row["content_type"], sha256: row["sha256"], size: row["size"],
            fetchedAt: row["fetched_at"], changedAt: row["changed_at"])
    }

    package func counts() async throws -> StoreCounts {
        var counts = StoreCounts(pushes: [:], dropped: [:], rejected: [:], wakes: [:])
        let read = try await reader.snapshot([
            StoreStatement(
                """
                SELECT fate, MIN(wake_id), reason, COUNT(*), MIN(CASE WHEN push_type = ?1 THEN 0 ELSE 1 END)
                FROM push_fates GROUP BY fate, wake_id IS NULL, reason, push_type = ?1
                """, [APNsPushType.liveactivity.rawValue]),
            StoreStatement("SELECT result, reason, kind, COUNT(*) FROM wakes GROUP BY kind, result, reason"),
        ])
        // Each row's stored fate, read through the one mapping and counted under its name.
        for row in read[0] {
            let fate = StoredFate(fate: row[0], wakeID: row[1], reason: row[2]).fate
            // A Live Activity push rides no wake (its activity applies it).
            counts.count(fate, ridesWake: (row[4] as Int64) == 1, times: row[3])
        }
        for row in read[1] {
            counts.countWake(
                kind: (row[2] as String?).flatMap(WakeKind.init(rawValue:)) ?? .fetch,
                result: StoredResult.read(result: row[0], reason: row[1]), times: row[3])
        }
        return counts
    }

    /// The largest push and wake ids given out (stored, or deleted since by retention or a
    /// reset), so a restarted receiver numbers on from there.
    package func lastIDs() async throws -> (push: UInt64, wake: UInt64) {
        let ids = try await lastIDs(of: ["pushes", "wakes"])
        return (ids[0], ids[1])
    }

    /// A `push_fates` row as a record, with the fate the view reads.
    static func push(_ row: StoreRow) -> PushRecord {
        let apnsStorage: Int64? = row.hasColumn("apns_storage") ? row["apns_storage"] : nil
        let stored = StoredFate(
            fate: row["fate"], wakeID: row["wake_id"], reason: row["reason"], apnsStorage: apnsStorage,
            replacedBy: row.hasColumn("replaced_by") ? row["replaced_by"] : nil)
        let warnings: String? = row["warnings"]
        let payload: Data = row["payload"]
        let generation: Int64? = row["generation"]
        let replaced: Int64? = row["replaced"]
        let fate = stored.fate
        return PushRecord(
            id: UInt64(bitPattern: row["id"]), apnsID: row["apns_id"], deviceToken: row["device_token"], topic: row["topic"],
            pushType: row["push_type"], priority: row["priority"], receivedAt: row["received_at"], expiresAt: row["expires_at"],
            collapseID: row["collapse_id"], payload: Array(payload),
            warnings: warnings.map { $0.split(separator: "\n").map(String.init) } ?? [],
            fate: fate,
            generation: generation.map { UInt32(truncatingIfNeeded: $0) }, replaced: replaced.map { UInt64(bitPattern: $0) },
            heldAtAPNs: StoredFate.heldAtAPNs(apnsStorage: apnsStorage))
    }
}
