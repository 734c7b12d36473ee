import Foundation
import SilentPushCore

/// Background transfers: their records, and the directory their files are kept in.
extension PushStore {
    /// Transfers, newest first, for a device, topic, session, wake, task run and/or relaunch
    /// request; `before`: only those numbered before it (a page's cursor).
    package func transfers(
        deviceToken: String? = nil, topic: String? = nil, session: String? = nil, wakeID: UInt64? = nil, taskRunID: UInt64? = nil,
        relaunchRequestID: UInt64? = nil, before: UInt64? = nil, limit: Int = 100
    ) async throws -> [TransferRecord] {
        try await reader.rows(
            """
            SELECT * FROM transfers WHERE (CAST(?1 AS TEXT) IS NULL OR device_token = ?1) AND (CAST(?2 AS TEXT) IS NULL OR topic = ?2)
                AND (CAST(?3 AS TEXT) IS NULL OR session = ?3) AND (CAST(?4 AS BIGINT) IS NULL OR wake_id = ?4) AND (CAST(?5 AS BIGINT) IS NULL OR task_run_id = ?5)
                AND (CAST(?6 AS BIGINT) IS NULL OR relaunch_request = ?6) AND id < ?7
            ORDER BY id DESC LIMIT ?8
            """,
            [
                deviceToken, topic, session, wakeID.map(Int64.init(bitPattern:)), taskRunID.map(Int64.init(bitPattern:)),
                relaunchRequestID.map(Int64.init(bitPattern:)), before.map { Int64(clamping: $0) } ?? Int64.max, max(0, limit),
            ]
        ).compactMap(Self.transfer)
    }

    /// The transfer with this id.
    package func transfer(id: UInt64) async throws -> TransferRecord? {
        try await reader.rows("SELECT * FROM transfers WHERE id = ?", [Int64(bitPattern: id)]).first.flatMap(Self.transfer)
    }

    /// What a restarted receiver carries on with, oldest first: transfers not ended, done
    /// ones whose session's relaunch was not yet asked for (and whose file was not deleted,
    /// as a force-quit's cancelled session's are), and failed ones of a session that sends
    /// launch events and still has a transfer not ended (its relaunch hands them over too; a
    /// session whose last transfer ended asked for its relaunch in the same commit).
    package func openTransfers() async throws -> [TransferRecord] {
        try await reader.rows(
            """
            SELECT * FROM transfers WHERE finished_at IS NULL OR (relaunch_request IS NULL AND state = 'done' AND file_fate IS NULL)
                OR (relaunch_request IS NULL AND state = 'failed' AND launch_events = 1 AND EXISTS (SELECT 1 FROM transfers AS sibling
                    WHERE sibling.device_token = transfers.device_token AND sibling.topic = transfers.topic
                        AND sibling.session = transfers.session AND sibling.finished_at IS NULL))
            ORDER BY id
            """
        ).compactMap(Self.transfer)
    }

    /// The newest done download of `url` for an app with the origin's validators: a later
    /// download of it asks with them, and a 304 keeps that body.
    package func lastValidatedTransfer(deviceToken: String, topic: String, url: String) async throws -> TransferRecord? {
        try await reader.rows(
            """
            SELECT * FROM transfers WHERE device_token = ? AND topic = ? AND url = ? AND \(Self.validated)
            ORDER BY id DESC LIMIT 1
            """, [deviceToken, topic, url]
        ).first.flatMap(Self.transfer)
    }

    /// Whether transfer `id` has a record (of any version's making).
    package func hasTransfer(id: UInt64) async throws -> Bool {
        try await !reader.rows("SELECT 1 AS found FROM transfers WHERE id = ?", [Int64(bitPattern: id)], cached: true).isEmpty
    }

    /// Each app's URLs with a done download kept for a later 304: what the transfers' cache
    /// may hold.
    package func validatedTransferURLs() async throws -> [(deviceToken: String, topic: String, url: String)] {
        try await reader.rows(
            """
            SELECT DISTINCT device_token, topic, url FROM transfers WHERE \(Self.validated)
            """
        ).map { ($0["device_token"], $0["topic"], $0["url"]) }
    }

    /// A done download with the origin's validators: its body is what a later 304 of its URL
    /// hands out (and the transfers' cache keeps).
    private static let validated = "state = 'done' AND method = 'GET' AND (etag IS NOT NULL OR last_modified IS NOT NULL)"

    /// The highest transfer id, so a restarted receiver numbers on.
    package func lastTransferID() async throws -> UInt64 {
        try await lastIDs(of: ["transfers"])[0]
    }

    /// A row as a record; nil for a row no version wrote (an unknown method or state).
    static func transfer(_ row: StoreRow) -> TransferRecord? {
        guard let method = TransferRequest.Method(rawValue: row["method"]), let state = TransferRecord.State(rawValue: row["state"]) else {
            return nil
        }
        let reason: String? = row["reason"]
        var record = TransferRecord(
            refused: .notAnObject, id: UInt64(bitPattern: row["id"]), deviceToken: row["device_token"], topic: row["topic"],
            session: row["session"], url: row["url"], at: DeviceInstant(millisecondsSinceEpoch: row["handed_over_at"]))
        record.method = method
        record.discretionary = row["discretionary"]
        record.allowsCellular = row["allows_cellular"]
        record.sessionSendsLaunchEvents = row["launch_events"]
        record.fromFile = row["from_file"]
        record.wakeID = (row["wake_id"] as Int64?).map(UInt64.init(bitPattern:))
        record.taskRunID = (row["task_run_id"] as Int64?).map(UInt64.init(bitPattern:))
        record.state = state
        record.why = state == .waiting ? reason.flatMap(WaitReason.init(stored:)) : nil
        record.reason = state == .waiting ? nil : reason
        record.attempts = max(0, row["attempts"])
        record.bytes = max(0, row["bytes"])
        record.finishedAt = (row["finished_at"] as Int64?).map(DeviceInstant.init(millisecondsSinceEpoch:))
        record.lastError = row["last_error"]
        record.status = (row["status"] as Int64?).flatMap { (100...999).contains($0) ? Int($0) : nil }
        record.etag = row["etag"]
        record.lastModified = row["last_modified"]
        record.relaunchRequestID = (row["relaunch_request"] as Int64?).map(UInt64.init(bitPattern:))
        record.fileFate = (row["file_fate"] as String?).flatMap(TransferRecord.FileFate.init(rawValue:))
        return record
    }
}
