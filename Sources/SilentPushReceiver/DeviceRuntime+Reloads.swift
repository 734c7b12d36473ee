import SilentPushCore
import SilentPushStore

/// Widget and control pushes reload their extension, under its daily reload budget.
extension DeviceRuntime {
    /// A `widgets` or `controls` push with `content-changed`: the reload policy decides, and
    /// the push is answered once its row, and the reload wake if it made one, are committed.
    func submitReload(_ push: ValidatedPush, id: UInt64, completion: @escaping @Sendable (Result<Void, APNsRejection>) -> Void) {
        let recorded = answeringOnceRecorded(push.apnsID, completion)
        let systemNow = DeviceClock.systemNow
        let reply = modifyStateAndRunActions { recorder, now in
            let (record, _) = PushRecord.received(push, id: id, neverWakes: nil, systemNow: systemNow, now: now)
            return recorder.receiveReload(record, now: now, completion: recorded)
        }
        _ = answeredAtOnce(reply, push, completion)
    }

    /// What answers push `apnsID`, which APNs accepted, once its row is committed: 200,
    /// counted accepted; not recorded, so not accepted: 503, counted refused, and the provider
    /// retries. (It captures the runtime, not its logger and metrics: one reference to retain
    /// per push.)
    func answeringOnceRecorded(
        _ apnsID: String, _ completion: @escaping @Sendable (Result<Void, APNsRejection>) -> Void
    ) -> PushStore.Completion {
        return { [self] result in
            switch result {
            case .success: metrics.accepted()
            case .failure(let error):
                logger.debug("cannot record a push", metadata: ["push.apns_id": "\(apnsID)", "error": "\(PushStore.describe(error))"])
                metrics.rejected(.serviceUnavailable)
            }
            completion(result.mapError { _ in APNsRejection(.serviceUnavailable) })
        }
    }
}
