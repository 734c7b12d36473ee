import SilentPushCore

/// Where accepted pushes go: the device side. `submit` answers once the push is recorded,
/// so a 200 means the push is kept; or with the reason it cannot be (503 Shutdown, …).
public protocol PushSink: Sendable {
    /// Takes `push`; `completion` runs once, from any thread.
    func submit(_ push: ValidatedPush, completion: @escaping @Sendable (Result<Void, APNsRejection>) -> Void)

    /// Notes a request APNs refused, so its fate (`rejected`) can be looked up by apns-id.
    /// The token and topic are what the request named, when it got that far.
    func reject(apnsID: String, deviceToken: String?, topic: String?, reason: APNsReason)
}

extension PushSink {
    public func reject(apnsID: String, deviceToken: String?, topic: String?, reason: APNsReason) {}
}
