import SilentPushCore

extension PushStore {
    /// Task requests, newest first, for a device and/or topic; only pending ones when `pendingOnly`.
    package func taskRequests(
        deviceToken: String? = nil, topic: String? = nil, pendingOnly: Bool = false, limit: Int = 100
    ) async throws
        -> [TaskRequestRecord]
    {
        try await reader.rows(
            """
            SELECT * FROM task_requests WHERE (CAST(?1 AS TEXT) IS NULL OR device_token = ?1) AND (CAST(?2 AS TEXT) IS NULL OR topic = ?2)
                AND (CAST(?3 AS BIGINT) = 0 OR state = 'pending')
            ORDER BY id DESC LIMIT ?4
            """, [deviceToken, topic, pendingOnly ? 1 : 0, max(0, limit)]
        ).compactMap(Self.taskRequest)
    }

    /// Requests that left pending without running (cancelled, or replaced by one with the same
    /// identifier), the last to end first, for a device and/or topic.
    package func endedTaskRequests(deviceToken: String? = nil, topic: String? = nil, limit: Int = 100) async throws -> [TaskRequestRecord] {
        try await reader.rows(
            """
            SELECT * FROM task_requests WHERE (CAST(?1 AS TEXT) IS NULL OR device_token = ?1) AND (CAST(?2 AS TEXT) IS NULL OR topic = ?2)
                AND state IN (?3, ?4)
            ORDER BY ended_at DESC, id DESC LIMIT ?5
            """,
            [
                deviceToken, topic, TaskRequestRecord.State.cancelled.rawValue, TaskRequestRecord.State.replaced.rawValue,
                max(0, limit),
            ]
        ).compactMap(Self.taskRequest)
    }

    /// The request with this id.
    package func taskRequest(id: UInt64) async throws -> TaskRequestRecord? {
        try await reader.rows("SELECT * FROM task_requests WHERE id = ?", [Int64(bitPattern: id)]).first.flatMap(Self.taskRequest)
    }

    /// Every pending request, oldest first: what a restarted receiver puts back.
    package func pendingTaskRequests() async throws -> [TaskRequestRecord] {
        try await reader.rows("SELECT * FROM task_requests WHERE state = 'pending' ORDER BY id").compactMap(Self.taskRequest)
    }

    /// Task runs, the latest started first, for a device and/or topic.
    package func taskRuns(deviceToken: String? = nil, topic: String? = nil, limit: Int = 100) async throws -> [TaskRunRecord] {
        try await reader.rows(
            """
            SELECT * FROM task_runs WHERE (CAST(?1 AS TEXT) IS NULL OR device_token = ?1) AND (CAST(?2 AS TEXT) IS NULL OR topic = ?2)
            ORDER BY started_at DESC, id DESC LIMIT ?3
            """, [deviceToken, topic, max(0, limit)]
        ).compactMap(Self.taskRun)
    }

    /// The run with this id.
    package func taskRun(id: UInt64) async throws -> TaskRunRecord? {
        try await reader.rows("SELECT * FROM task_runs WHERE id = ?", [Int64(bitPattern: id)]).first.flatMap(Self.taskRun)
    }

    /// Runs with no outcome: a receiver that stopped without recording one ended them.
    package func unfinishedTaskRuns() async throws -> [TaskRunRecord] {
        try await reader.rows("SELECT * FROM task_runs WHERE outcome IS NULL ORDER BY id").compactMap(Self.taskRun)
    }

    /// The highest request and run ids, so a restarted receiver numbers on.
    package func lastTaskIDs() async throws -> (request: UInt64, run: UInt64) {
        let ids = try await lastIDs(of: ["task_requests", "task_runs"])
        return (ids[0], ids[1])
    }

    /// A row as a record; nil for a row no version wrote (an unknown kind or state).
    private static func taskRequest(_ row: StoreRow) -> TaskRequestRecord? {
        guard let kind = BackgroundTaskKind(rawValue: row["kind"]), let state = TaskRequestRecord.State(rawValue: row["state"]) else {
            return nil
        }
        let request = TaskRequest(
            id: UInt64(bitPattern: row["id"]), identifier: row["identifier"], kind: kind,
            earliestBegin: (row["earliest_begin"] as Int64?).map(DeviceInstant.init(millisecondsSinceEpoch:)),
            requiresNetworkConnectivity: row["requires_network"], requiresExternalPower: row["requires_power"],
            strategy: TaskRequest<DeviceInstant>.Strategy(rawValue: row["strategy"]) ?? .queue)
        return TaskRequestRecord(
            deviceToken: row["device_token"], topic: row["topic"], request: request,
            submittedAt: DeviceInstant(millisecondsSinceEpoch: row["submitted_at"]), state: state,
            why: (row["reason"] as String?).flatMap(WaitReason.init(stored:)),
            endedAt: (row["ended_at"] as Int64?).map(DeviceInstant.init(millisecondsSinceEpoch:)))
    }

    private static func taskRun(_ row: StoreRow) -> TaskRunRecord? {
        guard let kind = BackgroundTaskKind(rawValue: row["kind"]) else { return nil }
        let outcome: String? = row["outcome"]
        return TaskRunRecord(
            id: UInt64(bitPattern: row["id"]), requestID: UInt64(bitPattern: row["request_id"]), deviceToken: row["device_token"],
            topic: row["topic"], identifier: row["identifier"], kind: kind, startedAt: DeviceInstant(millisecondsSinceEpoch: row["started_at"]),
            deadline: (row["deadline"] as Int64?).map(DeviceInstant.init(millisecondsSinceEpoch:)), simulated: row["simulated"],
            expiredAt: (row["expired_at"] as Int64?).map(DeviceInstant.init(millisecondsSinceEpoch:)),
            finishedAt: (row["finished_at"] as Int64?).map(DeviceInstant.init(millisecondsSinceEpoch:)),
            outcome: outcome.flatMap(TaskOutcome.init(rawValue:)), progressCompleted: max(0, row["progress_completed"]),
            progressTotal: max(0, row["progress_total"]),
            killedBy: outcome == TaskOutcome.killed.rawValue ? (row["killed_by"] as String?).flatMap(AppKill.init(rawValue:)) : nil)
    }
}
