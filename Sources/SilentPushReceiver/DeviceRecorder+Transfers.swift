import SilentPushCore
import SilentPushStore

/// Background transfers: the transfer policy decides when each runs, the executor runs it
/// against its origin, and a session whose transfers have all ended relaunches the app
/// through the wake policy (a task request of kind `urlSession`), under the device's budgets.
extension DeviceRecorder {
    /// What handed a transfer over.
    package enum TransferSource: Equatable, Sendable {
        case wake(UInt64)
        case taskRun(UInt64)
    }

    /// What of a refused request could be read, for its record.
    package struct RefusedRequest: Equatable, Sendable {
        package var session: String?
        package var url: String?
        package var method: TransferRequest.Method
        package var fromFile: String?
        /// The flags as asked (URLSession's defaults where not given or not read).
        package var discretionary: Bool
        package var allowsCellular: Bool
        package var sessionSendsLaunchEvents: Bool

        package init(
            session: String?, url: String?, method: TransferRequest.Method = .GET, fromFile: String? = nil,
            discretionary: Bool = TransferRequest.defaultDiscretionary, allowsCellular: Bool = TransferRequest.defaultAllowsCellular,
            sessionSendsLaunchEvents: Bool = TransferRequest.defaultSessionSendsLaunchEvents
        ) {
            self.session = session
            self.url = url
            self.method = method
            self.fromFile = fromFile
            self.discretionary = discretionary
            self.allowsCellular = allowsCellular
            self.sessionSendsLaunchEvents = sessionSendsLaunchEvents
        }

        /// A request that reads, refused for what it asks.
        package init(_ request: TransferRequest) {
            self.init(
                session: request.session, url: request.url, method: request.method, fromFile: request.fromFile, discretionary: request.discretionary,
                allowsCellular: request.allowsCellular, sessionSendsLaunchEvents: request.sessionSendsLaunchEvents)
        }
    }

    /// A try of a transfer for the executor to run.
    package struct TransferStart: Equatable, Sendable {
        package var id: UInt64
        package var attempt: Int
        package var app: App
        package var request: TransferRequest
    }

    /// How a try of a transfer ended, as the executor saw it.
    package enum TransferTryEnd: Equatable, Sendable {
        /// The origin's answer arrived in full: the file of `bytes` (a 304's is the body kept
        /// then), with its status and validators.
        case completed(bytes: Int64, status: Int, etag: String?, lastModified: String?)
        /// Cut off (the origin failed, the connection broke), with a part of `bytes` kept for
        /// the next try (those of earlier tries included).
        case cutOff(error: String, bytes: Int64)
        /// It can never be done (an upload's copy of its file is gone, too many redirects, an
        /// untrusted server certificate): it fails with `error`, without a retry.
        case cannotComplete(error: String)
    }

    /// The app's handler (of `source`) hands the device `request` as transfer `id`. Replies
    /// `transferRefused` when the app is at its cap (the refusal is recorded then).
    package mutating func handOver(_ request: TransferRequest, id: UInt64, app: App, source: TransferSource, now: DeviceInstant) -> Actions {
        var actions = Actions()
        let (wakeID, runID) = Self.ids(of: source)
        do {
            let decided = try transfers.submit(
                request, id: id, for: TransferPolicy.App(device: app.deviceToken, topic: app.topic),
                conditions: TransferPolicy.Conditions(policy.deviceState(app.device)), now: now)
            actions.changes.append(
                .insertTransfer(
                    TransferRecord(
                        id: id, deviceToken: app.deviceToken, topic: app.topic, request: request, wakeID: wakeID, taskRunID: runID, handedOverAt: now)
                ))
            actions.metrics.transfersHandedOver += 1
            record(decided, into: &actions, now: now)
        } catch {
            actions.append(refuseTransfer(error, id: id, app: app, source: source, request: RefusedRequest(request), now: now))
        }
        return finish(actions)
    }

    /// The app's handler (of `source`) handed over a request the device refuses: recorded
    /// `failed` with the refusal as its reason. Replies `transferRefused`.
    package mutating func refuseTransfer(
        _ refusal: TransferRefusal, id: UInt64, app: App, source: TransferSource, request: RefusedRequest, now: DeviceInstant
    ) -> Actions {
        var actions = Actions()
        let (wakeID, runID) = Self.ids(of: source)
        actions.changes.append(
            .insertTransfer(
                TransferRecord(
                    refused: refusal, id: id, deviceToken: app.deviceToken, topic: app.topic, session: request.session, url: request.url,
                    method: request.method, fromFile: request.fromFile, discretionary: request.discretionary,
                    allowsCellular: request.allowsCellular, sessionSendsLaunchEvents: request.sessionSendsLaunchEvents, wakeID: wakeID,
                    taskRunID: runID, at: now)))
        // Handed over and refused: the two counters reconcile (handed over = ended + open).
        actions.metrics.transfersHandedOver += 1
        actions.metrics.transferEnded(.failed)
        actions.reply = .transferRefused(refusal)
        return finish(actions)
    }

    /// Try `attempt` of transfer `id` ended as `end` (a report of an older try is ignored).
    /// While stopping, a completed try is recorded, and the relaunch it may complete a
    /// session for waits for the next start (`restoreTransfers` asks for it); a try cut off
    /// then (the receiver's stop cut it) leaves its record running with the part it kept, which
    /// the next run resumes from; one that cannot complete is not recorded (the next run tries
    /// it again).
    package mutating func transferTryEnded(_ id: UInt64, attempt: Int, _ end: TransferTryEnd, now: DeviceInstant) -> Actions {
        var actions = Actions()
        guard case .running(attempt)? = transfers.transfers[id]?.phase else { return finish(actions) }
        guard case .running = lifecycle else {
            if case .cutOff(_, let kept) = end { return transferTryStopped(id, attempt: attempt, kept: kept, now: now) }
            guard case .completed(let bytes, let status, let etag, let lastModified) = end else { return finish(actions) }
            // Nothing starts: not a relaunch, nor a retry come due (its record stays waiting).
            let ended = transfers.finished(id, completed: bytes, now: now).filter { action in
                switch action {
                case .relaunch, .start, .phase(_, .running): false
                case .phase, .interrupt, .abandon: true
                }
            }
            record(ended, into: &actions, now: now, answer: (status, etag, lastModified))
            return finish(actions)
        }
        switch end {
        case .completed(let bytes, let status, let etag, let lastModified):
            record(transfers.finished(id, completed: bytes, now: now), into: &actions, now: now, answer: (status, etag, lastModified))
        case .cutOff(let error, let bytes):
            actions.changes.append(.setTransferCutOff(id: id, error: error, bytes: bytes))
            record(transfers.finished(id, completed: nil, now: now), into: &actions, now: now)
        case .cannotComplete(let error):
            record(transfers.cannotComplete(id, reason: error, now: now), into: &actions, now: now)
        }
        return finish(actions)
    }

    /// Try `attempt` of transfer `id` was stopped because its conditions no longer hold (the
    /// device went offline, left Wi-Fi, …), or by the receiver's stop: the part it kept,
    /// `kept` bytes, is what the next try resumes from, and its record says so. Nothing is
    /// tried again for it here. Nothing when the transfer ended meanwhile (force-quit,
    /// forgotten) or another try runs.
    package mutating func transferTryStopped(_ id: UInt64, attempt: Int, kept: Int64, now: DeviceInstant) -> Actions {
        var actions = Actions()
        guard let transfer = transfers.transfers[id], transfer.attempts == attempt else { return finish(actions) }
        let error: String
        switch transfer.phase {
        case .waiting(.offline): error = "stopped: the device went offline"
        case .waiting(.wifiRequired): error = "stopped: the device left Wi-Fi, and the transfer does not allow cellular access"
        case .waiting(.discretionary): error = "stopped: a discretionary transfer's conditions no longer hold"
        case .waiting: error = "stopped"
        // Still running: the receiver's stop cut it; its record stays running, and the next
        // start resumes it from this part.
        case .running: error = "stopped: the receiver stopped; its next start resumes it"
        case .ended: return finish(actions)
        }
        actions.changes.append(.setTransferCutOff(id: id, error: error, bytes: kept))
        return finish(actions)
    }

    /// A relaunch's handler ended: what became of each of its files (moved away, or deleted).
    package mutating func settleTransferFiles(_ files: [(id: UInt64, fate: TransferRecord.FileFate)]) -> Actions {
        var actions = Actions()
        for file in files { actions.changes.append(.setTransferFile(id: file.id, fate: file.fate)) }
        return finish(actions)
    }

    /// The retry a waiting transfer's record says it waits for.
    static func retry(of record: TransferRecord) -> (attempt: Int, until: DeviceInstant)? {
        guard record.state == .waiting, case .transferRetry(let attempt, let until)? = record.why else { return nil }
        return (attempt, until)
    }

    /// Puts back the transfers a restarted receiver found (`openTransfers`): those not ended
    /// start again when they may (a retry still to come at its time), and a session whose
    /// transfers had all ended relaunches the app. `keptParts`: the bytes of each download's
    /// part on disk; one its record does not say (the receiver ended without a stop, as a
    /// stop records it) is recorded, as the try's cut-off.
    package mutating func restoreTransfers(_ records: [TransferRecord], keptParts: [UInt64: Int64] = [:], now: DeviceInstant) -> Actions {
        var actions = Actions()
        // A refused request was never its session's: it neither holds the session open nor
        // sets what the session's transfers must say.
        for record in records where !record.wasRefused {
            guard let request = record.request else { continue }
            if record.finishedAt == nil, let kept = keptParts[record.id], kept != record.bytes {
                actions.changes.append(
                    .setTransferCutOff(id: record.id, error: "stopped: the receiver ended without a stop; its next start resumes it", bytes: kept))
            }
            let ended: TransferEnd? =
                switch record.state {
                case .done: .done(bytes: record.bytes)
                case .failed: .failed(reason: record.reason ?? "failed")
                case .cancelled: .cancelled
                case .waiting, .running: nil
                }
            self.record(
                transfers.restore(
                    request, id: record.id, for: TransferPolicy.App(device: record.deviceToken, topic: record.topic),
                    handedOverAt: record.handedOverAt, attempts: record.attempts, ended: ended, retry: Self.retry(of: record),
                    conditions: TransferPolicy.Conditions(policy.deviceState(DeviceKey(record.deviceToken))), now: now),
                into: &actions, now: now)
        }
        record(transfers.resumeSessions(now: now), into: &actions, now: now)
        return finish(actions)
    }

    /// `device`'s state went from `old` to `new`: a force-quit cancels its transfers, other
    /// changes may start or cut off some.
    mutating func deviceChangedForTransfers(
        _ device: String, from old: DeviceState, to new: DeviceState, now: DeviceInstant, into actions: inout Actions
    ) {
        if new.forceQuit, !old.forceQuit {
            record(transfers.forceQuit(device: device, now: now), into: &actions, now: now)
        } else if TransferPolicy.Conditions(old) != TransferPolicy.Conditions(new) {
            record(transfers.conditionsChanged(TransferPolicy.Conditions(new), device: device, now: now), into: &actions, now: now)
        }
    }

    private static func ids(of source: TransferSource) -> (wake: UInt64?, run: UInt64?) {
        switch source {
        case .wake(let id): (id, nil)
        case .taskRun(let id): (nil, id)
        }
    }

    /// Why the system cancelled an app's background transfers.
    enum TransferCancellation {
        /// The user force-quit the app.
        case forceQuit
        /// The app was deleted: uninstalled, or reinstalled.
        case appDeleted

        /// The cancelled transfer's reason, as its record keeps it.
        var words: String {
            switch self {
            case .forceQuit: "the app was force-quit: the system cancels its background transfers"
            case .appDeleted: "the app was deleted (uninstalled or reinstalled): the system cancels its background transfers"
            }
        }
    }

    /// Turns the transfer policy's actions into store changes, tries to run or stop, and
    /// relaunches (`answer`: the origin's status and validators, for a transfer that just
    /// completed; `cancelledBecause`: why a cancelled one was).
    mutating func record(
        _ transferActions: [TransferAction], into actions: inout Actions, now: DeviceInstant,
        answer: (status: Int?, etag: String?, lastModified: String?) = (nil, nil, nil), cancelledBecause: TransferCancellation = .forceQuit
    ) {
        for action in transferActions {
            switch action {
            case .phase(let id, .waiting(let why)):
                actions.changes.append(.setTransferPhase(id: id, state: .waiting, why: why.stored, attempts: transfers.transfers[id]?.attempts ?? 0))
            case .phase(let id, .running(let attempt)):
                actions.changes.append(.setTransferPhase(id: id, state: .running, why: nil, attempts: attempt))
            case .phase(let id, .ended(let end)):
                let at = now.millisecondsSinceEpoch
                switch end {
                case .done(let bytes):
                    actions.changes.append(
                        .finishTransfer(
                            id: id, state: .done, at: at, bytes: bytes, reason: nil, status: answer.status, etag: answer.etag,
                            lastModified: answer.lastModified))
                    actions.metrics.transferEnded(.done)
                case .failed(let reason):
                    actions.changes.append(
                        .finishTransfer(id: id, state: .failed, at: at, bytes: nil, reason: reason, status: nil, etag: nil, lastModified: nil))
                    actions.metrics.transferEnded(.failed)
                    actions.transferDiscards.append(id)
                case .cancelled:
                    actions.changes.append(
                        .finishTransfer(
                            id: id, state: .cancelled, at: at, bytes: nil, reason: cancelledBecause.words, status: nil, etag: nil, lastModified: nil))
                    actions.metrics.transferEnded(.cancelled)
                    actions.transferDiscards.append(id)
                }
            case .start(let id, let attempt):
                guard let transfer = transfers.transfers[id] else { continue }
                actions.transferStarts.append(
                    TransferStart(
                        id: id, attempt: attempt, app: App(device: transfer.app.device, topic: transfer.app.topic), request: transfer.request))
            case .interrupt(let id):
                actions.transferInterrupts.append(id)
            case .abandon(let id):
                actions.changes.append(.setTransferFile(id: id, fate: .deleted))
                actions.transferDiscards.append(id)
            case .relaunch(let app, let session, let ids):
                let requestID = takeTaskRequestID()
                let key = App(device: app.device, topic: app.topic)
                actions.changes.append(
                    .insertTaskRequest(
                        TaskRequestRecord(
                            deviceToken: app.device, topic: app.topic, request: TaskRequest(id: requestID, identifier: session, kind: .urlSession),
                            submittedAt: now)))
                actions.changes.append(.setTransferRelaunch(ids: ids, request: requestID))
                apply(policy.relaunch(session: session, requestID: requestID, for: key, now: now), to: &actions)
            }
        }
    }
}
