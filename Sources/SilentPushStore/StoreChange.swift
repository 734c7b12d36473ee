import SilentPushCore

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
    /// The device side knows the app `topic` (a bundle id) on the device: a push was accepted
    /// for it, an activity or a task request was recorded for it. Listed from then on, until
    /// the device is forgotten: retention never prunes it.
    case knowApp(deviceToken: String, topic: String)
    /// Every app the records kept name is known (`PostgresSchema.knownAppsFromRecords`): a
    /// cluster's member carrying out another's reset, which deleted every row first, keeps
    /// the apps of what it recorded since (its cache said they were known).
    case knowAppsFromRecords
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
    /// Every record of a device goes: pushes, wakes, state, apps, task requests and runs,
    /// contents, activities and transfers.
    case forgetDevice(token: String)
    /// Every record goes (the manual clock stays: device time does not go back).
    case forgetEverything
}
