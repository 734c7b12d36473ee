import Logging
import SilentPushCore

/// Background task runs: what the executor does with a run the recorder started.
extension DeviceRuntime {

    /// Connects a run the policy started to the device side and queues its handler.
    func startTask(_ task: BackgroundTask) {
        let app = AppKey(device: task.deviceToken, topic: task.topic)
        task.connect { [self] report in
            modifyStateAndRunActions { recorder, now in recorder.taskReport(report, runID: task.runID, app: app, now: now) }
        }
        logger.debug(
            "task started",
            metadata: [
                "task.run_id": "\(task.runID)", "task.identifier": "\(task.identifier)", "task.kind": "\(task.kind.rawValue)",
                "device.token": Self.shortened(task.deviceToken), "app.topic": "\(task.topic)",
            ])
        fetchQueue.yield(.task(task))
    }

    /// Runs one task's handler (a child task of `run()`): its Swift task is cancelled when
    /// the run expires (after its expiration handler) or is terminated.
    func runTask(_ task: BackgroundTask) async {
        let app = AppKey(device: task.deviceToken, topic: task.topic)
        task.prepare(context: transferContext(app: app, source: .taskRun(task.runID)), files: await relaunchFiles(task))
        var expiredAt: ContinuousClock.Instant?
        await countingHandler {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.handler.runTask(task) }
                group.addTask { await task.expiration.wait() }
                group.addTask { await task.termination.wait() }
                await group.next()
                if task.isExpired { expiredAt = .now }
                group.cancelAll()
                await group.waitForAll()
            }
        }
        // Interrupted by the receiver's stop first, the relaunch runs again with its files at
        // the next start.
        if task.handlerReturned(), task.kind == .urlSession { settleRelaunchFiles(task) }
        task.settled.open()
        // Expired, and its handler gone without completing: once the grace is over in real
        // time, on either clock, it is terminated (a manual clock's timer would wait for a
        // move), unless it is terminated or interrupted before.
        if let expiredAt, !task.isSettled, !Task.isCancelled {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { [grace = settings.taskExpirationGrace] in try? await Task.sleep(until: expiredAt + grace) }
                group.addTask { await task.termination.wait() }
                await group.next()
                group.cancelAll()
            }
            if !task.isSettled, !Task.isCancelled {
                modifyStateAndRunActions { recorder, now in recorder.taskGraceOver(runID: task.runID, app: app, now: now) }
            }
        }
    }
}
