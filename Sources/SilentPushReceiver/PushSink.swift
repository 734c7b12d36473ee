import SilentPushCore
import Synchronization

/// Where accepted pushes go: the device side. `submit` answers once the push is recorded,
/// so a 200 means the push is kept; or with the reason it cannot be (503 Shutdown, …).
public protocol PushSink: Sendable {
    /// Takes the id the sink's store gives the next push, accepted or refused; ids ascend.
    /// The endpoint takes one per request and makes a generated apns-id from it
    /// (`APNsIDGenerator.apnsID(pushID:)`), so the store finds that push by id.
    func takePushID() -> UInt64

    /// Whether pushes to the device whose token is `deviceToken` (as the path gives it) are
    /// this sink's to take: false for a device of a shard that another receiver of the
    /// cluster owns. The endpoint answers those 503 `ServiceUnavailable`, recording nothing.
    func owns(deviceToken: Substring) -> Bool

    /// Takes `push`, recorded as `id` (from `takePushID`); `completion` runs once, from any
    /// thread.
    func submit(_ push: ValidatedPush, id: UInt64, completion: @escaping @Sendable (Result<Void, APNsRejection>) -> Void)

    /// Notes a request APNs refused, recorded as `id`, so its fate (`rejected`) can be looked
    /// up by apns-id. The token and topic are what the request named, when it got that far.
    func reject(id: UInt64, apnsID: String, deviceToken: String?, topic: String?, reason: APNsReason)

    /// The same, with the receiver's own words for why (`cause`), kept with the push.
    func reject(id: UInt64, apnsID: String, deviceToken: String?, topic: String?, reason: APNsReason, cause: String?)

    /// Notes a request a fault rule answered (`rule` doing `action`), recorded as `id`.
    func inject(id: UInt64, apnsID: String, deviceToken: String, topic: String?, rule: UInt64, action: FaultAction)

    /// A fault rule applied `action` to a request (counted; `inject` records what it answered).
    func faultApplied(_ action: FaultAction)

    /// Takes a broadcast APNs accepted on a channel with `storagePolicy`: recorded, and
    /// fanned out to the activities subscribed; `completion` runs once, from any thread.
    func broadcast(
        _ record: BroadcastRecord, storagePolicy: MessageStoragePolicy, completion: @escaping @Sendable (Result<Void, APNsRejection>) -> Void)
}

extension PushSink {
    /// A sink that is not part of a cluster takes every device's pushes.
    public func owns(deviceToken: Substring) -> Bool { true }

    /// By default the refusal is not recorded.
    public func reject(id: UInt64, apnsID: String, deviceToken: String?, topic: String?, reason: APNsReason) {}

    /// By default `cause` is dropped: the refusal goes to `reject` without it.
    public func reject(id: UInt64, apnsID: String, deviceToken: String?, topic: String?, reason: APNsReason, cause: String?) {
        reject(id: id, apnsID: apnsID, deviceToken: deviceToken, topic: topic, reason: reason)
    }

    /// By default the injected answer is not recorded.
    public func inject(id: UInt64, apnsID: String, deviceToken: String, topic: String?, rule: UInt64, action: FaultAction) {}

    /// By default nothing is counted.
    public func faultApplied(_ action: FaultAction) {}

    /// A sink with no device side keeps no broadcast, as it keeps no push.
    public func broadcast(
        _ record: BroadcastRecord, storagePolicy: MessageStoragePolicy, completion: @escaping @Sendable (Result<Void, APNsRejection>) -> Void
    ) {
        completion(.success(()))
    }

    /// Ids from one process-wide sequence, for sinks that keep no store.
    public func takePushID() -> UInt64 {
        unstoredPushIDs.add(1, ordering: .relaxed).newValue
    }
}

private let unstoredPushIDs = Atomic<UInt64>(0)
