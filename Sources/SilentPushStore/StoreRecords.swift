import SilentPushCore

/// A push as stored: what APNs accepted and what became of it.
package struct PushRecord: Sendable, Equatable {
    /// The policy's reference (unique per store).
    package var id: UInt64
    package var apnsID: String
    package var deviceToken: String
    package var topic: String
    package var pushType: String
    package var priority: Int
    /// Device-clock ms since the epoch.
    package var receivedAt: Int64
    /// Device-clock ms since the epoch; nil: no expiry.
    package var expiresAt: Int64?
    package var collapseID: String?
    package var payload: [UInt8]
    package var warnings: [String]
    package var fate: PushFate
    /// The slot generation it waited in, if it did.
    package var generation: UInt32?
    /// The push it replaced in its app's slot (coalesced into the same slot generation).
    /// Inserting this record writes that push's fate: coalesced, waiting for the wake that
    /// closes the generation.
    package var replaced: UInt64?

    /// A record.
    package init(
        id: UInt64, apnsID: String, deviceToken: String, topic: String, pushType: String, priority: Int,
        receivedAt: Int64, expiresAt: Int64?, collapseID: String?, payload: [UInt8], warnings: [String],
        fate: PushFate, generation: UInt32? = nil, replaced: UInt64? = nil
    ) {
        self.id = id
        self.apnsID = apnsID
        self.deviceToken = deviceToken
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.receivedAt = receivedAt
        self.expiresAt = expiresAt
        self.collapseID = collapseID
        self.payload = payload
        self.warnings = warnings
        self.fate = fate
        self.generation = generation
        self.replaced = replaced
    }
}

/// The latest content an `http` fetch handler got for one device, topic and URL. The body
/// is a file named by its SHA-256 beside the database.
package struct ContentRecord: Sendable, Equatable {
    package var deviceToken: String
    package var topic: String
    package var url: String
    /// The origin's validators, sent back as `If-None-Match` / `If-Modified-Since`.
    package var etag: String?
    package var lastModified: String?
    package var contentType: String?
    /// Lower-case hex SHA-256 of the body: its file's name.
    package var sha256: String
    package var size: Int
    /// Device-clock ms of the last fetch, and of the last one that changed the body.
    package var fetchedAt: Int64
    package var changedAt: Int64

    /// A record.
    package init(
        deviceToken: String, topic: String, url: String, etag: String?, lastModified: String?, contentType: String?,
        sha256: String, size: Int, fetchedAt: Int64, changedAt: Int64
    ) {
        self.deviceToken = deviceToken
        self.topic = topic
        self.url = url
        self.etag = etag
        self.lastModified = lastModified
        self.contentType = contentType
        self.sha256 = sha256
        self.size = size
        self.fetchedAt = fetchedAt
        self.changedAt = changedAt
    }
}

/// One change to the store; a batch of them is committed in one transaction.
package enum StoreChange: Sendable, Equatable {
    /// A push APNs accepted; the pending push it `replaced`, if any, becomes coalesced.
    case insertPush(PushRecord)
    /// A push's fate changed (its generation too, when it entered a slot).
    case setFate(push: UInt64, fate: PushFate, generation: UInt32?)
    /// A slot generation closed with the push that waited last in it (`head`): every push
    /// coalesced before it, following `replaced` back, takes this fate (the delivering
    /// wake's id, or expired or dropped with the head).
    case closeGeneration(head: UInt64, fate: PushFate)
    /// `push` was replaced at APNs (the device was offline), not on the device.
    case setCoalescedByAPNs(push: UInt64)
    /// The user last opened the app at `at` (device-clock ms; nil: unknown).
    case setLastOpened(deviceToken: String, topic: String, at: Int64?)
    /// A wake started.
    case insertWake(WakeRecord)
    /// A wake ended.
    case finishWake(id: UInt64, finishedAt: Int64, result: FetchResult)
    /// What a wake's fetch handler wrote to stderr.
    case setWakeErrorOutput(id: UInt64, text: String)
    /// A device's state changed.
    case setDevice(token: String, state: DeviceState)
    /// The latest content for a device, topic and URL.
    case setContent(ContentRecord)
    /// A manual device clock was moved to this time (ms since the epoch).
    case setManualClock(at: Int64)
    /// A device token was unregistered at this time (ms since the epoch), or registered again (nil).
    case setUnregistered(token: String, at: Int64?)
    /// A token registered at run time (a reinstall's new token, or one registered again), for
    /// `topics` (none: any); a restart registers it again.
    case setRegistered(token: String, topics: [String])
    /// A write that changes nothing anyone reads, to learn whether the store takes writes.
    case probe(at: Int64)
    /// A background task request was submitted.
    case insertTaskRequest(TaskRequestRecord)
    /// A request's state changed: why it waits (pending), or how it left pending, at `at` (ms).
    case setTaskRequest(id: UInt64, state: TaskRequestRecord.State, why: String?, at: Int64?)
    /// A task run started.
    case insertTaskRun(TaskRunRecord)
    /// A run's expiration handler was called at `at` (ms).
    case expireTaskRun(id: UInt64, at: Int64)
    /// A run ended at `at` (ms).
    case finishTaskRun(id: UInt64, at: Int64, outcome: TaskOutcome)
    /// A run ended `killed` at `at` (ms): the system killed its app (`cause`).
    case killTaskRun(id: UInt64, at: Int64, cause: AppKill)
    /// A continued task reported progress.
    case setTaskProgress(id: UInt64, completed: Int64, total: Int64)
    /// A broadcast channel was created.
    case insertChannel(BroadcastChannel)
    /// A broadcast channel was deleted.
    case deleteChannel(ChannelID, bundleID: String, environment: APNsEnvironment)
    /// APNs accepted a broadcast.
    case insertBroadcast(BroadcastRecord)
    /// A Live Activity began or changed: its row, as it now is.
    case recordActivity(LiveActivity)
    /// A decision about one update of a Live Activity.
    case insertActivityUpdate(LiveActivityUpdate)
    /// Every record of a device goes: pushes, wakes, state, apps, task requests and runs, contents.
    /// A transfer handed over (or refused).
    case insertTransfer(TransferRecord)
    /// A transfer waits (`why`, stored form) or runs, after `attempts` tries.
    case setTransferPhase(id: UInt64, state: TransferRecord.State, why: String?, attempts: Int)
    /// A transfer ended: `done` with `bytes` and the origin's validators, `failed` with
    /// `reason`, or `cancelled`.
    case finishTransfer(
        id: UInt64, state: TransferRecord.State, at: Int64, bytes: Int64?, reason: String?, status: Int?, etag: String?, lastModified: String?)
    /// A try of a transfer was cut off by `error`, with `bytes` kept so far.
    case setTransferCutOff(id: UInt64, error: String, bytes: Int64)
    /// These transfers' session relaunches the app as task request `request`.
    case setTransferRelaunch(ids: [UInt64], request: UInt64)
    /// What the relaunch's handler did with a done transfer's file.
    case setTransferFile(id: UInt64, fate: TransferRecord.FileFate)
    case forgetDevice(token: String)
    /// Every record goes (the manual clock stays: device time does not go back).
    case forgetEverything
}

/// Totals over the store (the admin API's `GET /v1/stats`).
package struct StoreCounts: Sendable, Equatable {
    /// Pushes by fate.
    package var pushes: [String: Int]
    /// Dropped pushes by reason.
    package var dropped: [String: Int]
    /// Rejected pushes by Apple's reason.
    package var rejected: [String: Int]
    /// Fetch wakes by result; widget and control reloads by their kind (`widgets`, `controls`).
    package var wakes: [String: Int]

    /// What `GET /v1/stats` calls a push of `fate`: its fate's name, but `coalescedWaiting`
    /// for a coalesced push whose wake has not started. A Live Activity push (`ridesWake`
    /// false) rides none: replaced by a newer update, it is coalesced for good.
    package static func pushKey(_ fate: PushFate, ridesWake: Bool = true) -> String {
        fate.kind == .coalesced && fate.wakeID == nil && ridesWake ? "coalescedWaiting" : fate.name
    }

    /// What `GET /v1/stats` calls a fetch wake that ended with `result` (nil: running):
    /// `deadlineExceeded` apart from other failures.
    package static func wakeKey(_ result: FetchResult?) -> String {
        guard let result else { return "running" }
        return result.countedAs.rawValue
    }

    /// What `GET /v1/stats` calls a wake of `kind` that ended with `result`: a reload by its kind.
    package static func wakeKey(_ kind: WakeKind, _ result: FetchResult?) -> String {
        kind == .fetch ? wakeKey(result) : kind.rawValue
    }

    /// Counts `times` pushes of `fate`, and their reason when dropped or rejected.
    mutating func count(_ fate: PushFate, ridesWake: Bool = true, times: Int) {
        pushes[Self.pushKey(fate, ridesWake: ridesWake), default: 0] += times
        if let reason = fate.dropReason { dropped[reason.description, default: 0] += times }
        if fate.kind == .rejected { rejected[fate.rejection?.rawValue ?? "", default: 0] += times }
    }

    /// Counts `times` wakes of `kind` that ended with `result` (nil: running).
    mutating func countWake(kind: WakeKind, result: FetchResult?, times: Int) {
        wakes[Self.wakeKey(kind, result), default: 0] += times
    }
}
