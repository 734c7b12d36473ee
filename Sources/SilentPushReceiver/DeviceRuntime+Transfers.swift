import Foundation
import Logging
import SilentPushCore
import SilentPushStore

/// Background transfers: what the executor does with the hand-overs of the apps' handlers,
/// the tries the transfer policy starts, and the files of a relaunch.
extension DeviceRuntime {
    /// A handler of `app` (running for `source`) hands the device `request`. Returns the
    /// transfer's id; throws the refusal (recorded, with the wake or run) when it is refused.
    func handOver(_ request: TransferRequest, app: AppKey, source: DeviceRecorder.TransferSource) throws(TransferRefusal) -> UInt64 {
        let id = nextTransferID.add(1, ordering: .relaxed).oldValue
        if let path = request.fromFile {
            // The upload's body is copied now, before the record says it was handed over; an
            // app at its cap is refused without a copy.
            do throws(TransferRefusal) {
                if inspect({ $0.transfers.isAtCap(TransferPolicy.App(device: app.deviceToken, topic: app.topic)) }) { throw .tooMany }
                try transferClient.takeUploadCopy(of: path, for: id)
            } catch {
                refuseTransfer(error, request: .init(request), app: app, source: source, id: id)
                throw error
            }
        }
        let reply = modifyStateAndRunActions { recorder, now in recorder.handOver(request, id: id, app: app, source: source, now: now) }
        if case .transferRefused(let refusal) = reply {
            if request.fromFile != nil { transferClient.discard(id) }
            logRefusal(refusal, id: id, session: request.session, app: app)
            throw refusal
        }
        logger.debug(
            "transfer handed over",
            metadata: [
                "transfer.id": "\(id)", "transfer.session": "\(request.session)", "device.token": Self.shortened(app.deviceToken),
                "app.topic": "\(app.topic)",
            ])
        return id
    }

    /// A handler of `app` handed over something the device refuses (`request`: what of it
    /// could be read). Recorded with the wake or run.
    /// `id`: the one the hand-over already took, if it did.
    func refuseTransfer(
        _ refusal: TransferRefusal, request: DeviceRecorder.RefusedRequest, app: AppKey, source: DeviceRecorder.TransferSource, id: UInt64? = nil
    ) {
        let id = id ?? nextTransferID.add(1, ordering: .relaxed).oldValue
        modifyStateAndRunActions { recorder, now in
            recorder.refuseTransfer(refusal, id: id, app: app, source: source, request: request, now: now)
        }
        logRefusal(refusal, id: id, session: request.session, app: app)
    }

    /// A refused hand-over, in the log as in its record (its URL left out: it may carry a secret).
    private func logRefusal(_ refusal: TransferRefusal, id: UInt64, session: String?, app: AppKey) {
        logger.notice(
            "transfer refused: \(refusal.rawValue)",
            metadata: [
                "transfer.id": "\(id)", "transfer.session": "\(session ?? "-")", "device.token": Self.shortened(app.deviceToken),
                "app.topic": "\(app.topic)",
            ])
    }

    /// What a handler of `app` hands transfers over through.
    func transferContext(app: AppKey, source: DeviceRecorder.TransferSource) -> FetchContext {
        FetchContext { [self] request throws(TransferRefusal) in
            try handOver(request, app: app, source: source)
        } refuse: {
            [self] refusal, request in
            refuseTransfer(refusal, request: request, app: app, source: source)
        } shutdownGraceLeft: { [self] in
            isShuttingDown ? remainingShutdownGrace() : nil
        }
    }

    /// Runs one try of a transfer (a child task of `run()`) until it ends or is stopped (its
    /// conditions no longer hold, force-quit, forgotten; nothing is reported then).
    func runTransfer(_ transfer: TransferTry) async {
        defer { transferTryRecorded(transfer) }
        let start = transfer.start
        let validators = try? await store.lastValidatedTransfer(deviceToken: start.app.deviceToken, topic: start.app.topic, url: start.request.url)
        let began = ContinuousClock.now
        let (outcome, stopped) = await withTaskGroup(of: TransferClient.TryOutcome?.self) { group in
            group.addTask { [transferClient] in
                await transferClient.run(start, validators: validators.map { ($0.etag, $0.lastModified) })
            }
            group.addTask {
                await transfer.stop.wait()
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            // A stopped try's run still unwinds and says what it received.
            var outcome = first
            while let next = await group.next() { outcome = outcome ?? next }
            return (outcome, first == nil)
        }
        transferTryOver(transfer)
        // The metric counts what crossed the network, in a stopped try too.
        metrics.transferred(bytes: outcome?.received ?? 0)
        // A try its conditions stopped, or the receiver's stop (which cancels the task, and so
        // ends the wait for a stop too), keeps its part: the record says how much, and nothing
        // is tried again for it. A try that completed first is reported, even then.
        if stopped || Task.isCancelled {
            if case .cutOff(_, let kept)? = outcome?.end {
                modifyStateAndRunActions { recorder, now in recorder.transferTryStopped(start.id, attempt: start.attempt, kept: kept, now: now) }
            }
            guard case .completed? = outcome?.end else { return }
        }
        guard let ended = outcome?.end else { return }
        let bytes: Int64
        switch ended {
        case .completed(let total, _, _, _): bytes = total
        case .cutOff(let error, let kept):
            bytes = kept
            logger.notice(
                "transfer cut off", metadata: ["transfer.id": "\(start.id)", "transfer.attempt": "\(start.attempt)", "error": "\(error)"])
        case .cannotComplete(let error):
            bytes = 0
            logger.notice("transfer failed", metadata: ["transfer.id": "\(start.id)", "error": "\(error)"])
        }
        logger.debug(
            "transfer try ended",
            metadata: [
                "transfer.id": "\(start.id)", "transfer.attempt": "\(start.attempt)", "transfer.bytes": "\(bytes)",
                "transfer.received": "\(outcome?.received ?? 0)",
                "transfer.duration_ms": "\((ContinuousClock.now - began).nanosecondCount / 1_000_000)",
            ])
        modifyStateAndRunActions { recorder, now in recorder.transferTryEnded(start.id, attempt: start.attempt, ended, now: now) }
    }

    /// What a relaunch says of a done transfer whose file is not on this receiver.
    static let fileGone = "its file is gone: not in this receiver's contents directory"

    /// The files a relaunch for `task`'s session hands the app: its session's done transfers
    /// whose files are here (one that is not, deleted or never on this receiver after a
    /// failover, is handed over with no path and `fileGone`), and why the others failed.
    func relaunchFiles(_ task: BackgroundTask) async -> [TransferFile] {
        guard task.kind == .urlSession else { return [] }
        // The relaunch's request was written before the run started; once committed it is readable.
        try? await store.flush()
        let records = (try? await store.transfers(relaunchRequestID: task.requestID, limit: TransferPolicy.Settings.maximumCap)) ?? []
        return records.reversed().map { record in
            let file = transferClient.file(of: record.id)
            let here = record.state == .done && FileManager.default.fileExists(atPath: file)
            let error = record.state == .done ? (here ? nil : Self.fileGone) : record.reason ?? record.lastError
            return TransferFile(
                transferID: record.id, url: record.url, path: here ? file : nil, bytes: record.bytes, status: record.status, error: error)
        }
    }

    /// Relaunches cancelled before they ran (their app deleted): the files their transfers
    /// kept are deleted, as iOS deletes the app's container, and recorded so.
    func discardRelaunchFiles(of requests: [UInt64]) async {
        // The cancellation was queued before this ran; once committed its records are read.
        try? await store.flush()
        var fates: [(id: UInt64, fate: TransferRecord.FileFate)] = []
        for request in requests {
            let records = (try? await store.transfers(relaunchRequestID: request, limit: TransferPolicy.Settings.maximumCap)) ?? []
            for record in records where record.state == .done && record.fileFate == nil {
                transferClient.discard(record.id)
                fates.append((record.id, .deleted))
            }
        }
        guard !fates.isEmpty else { return }
        modifyStateAndRunActions { recorder, _ in recorder.settleTransferFiles(fates) }
    }

    /// A relaunch's handler is done: each file it did not move away is deleted, as iOS
    /// deletes it once `didFinishDownloadingTo` returns, and what became of each is recorded
    /// (a file handed over with no path, being gone, has no fate).
    func settleRelaunchFiles(_ task: BackgroundTask) {
        let files = task.files.compactMap { file in file.path.map { (file.transferID, $0) } }
        guard !files.isEmpty else { return }
        var fates: [(id: UInt64, fate: TransferRecord.FileFate)] = []
        for (id, path) in files {
            if FileManager.default.fileExists(atPath: path) {
                try? FileManager.default.removeItem(atPath: path)
                fates.append((id, .deleted))
            } else {
                fates.append((id, .moved))
            }
        }
        modifyStateAndRunActions { recorder, _ in recorder.settleTransferFiles(fates) }
    }
}
