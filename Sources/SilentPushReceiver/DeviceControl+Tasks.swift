import Logging
import Synchronization
import SilentPushCore
import SilentPushStore

/// Background tasks: what an app submits through `BGTaskScheduler`, and the
/// debugger's commands, as the Swift API and the admin API call them.
extension DeviceControl {
    /// A request as an app submits it (`BGAppRefreshTaskRequest`, `BGProcessingTaskRequest`,
    /// `BGContinuedProcessingTaskRequest`).
    public struct TaskSubmission: Sendable, Equatable {
        /// The task identifier, one of the app's permitted identifiers.
        public var identifier: String
        /// Which request it is: `refresh`, `processing` or `continued`.
        public var kind: BackgroundTaskKind
        /// `earliestBeginDate`, on the device clock.
        public var earliestBegin: DeviceInstant?
        /// Processing only: run only while the device is online.
        public var requiresNetworkConnectivity: Bool
        /// Processing only: run only while the device charges.
        public var requiresExternalPower: Bool
        /// For a continued task: wait (`queue`) or fail when it cannot start at once.
        public var strategy: TaskRequest<DeviceInstant>.Strategy

        /// A submission.
        public init(
            identifier: String, kind: BackgroundTaskKind, earliestBegin: DeviceInstant? = nil, requiresNetworkConnectivity: Bool = false,
            requiresExternalPower: Bool = false, strategy: TaskRequest<DeviceInstant>.Strategy = .queue
        ) {
            self.identifier = identifier
            self.kind = kind
            self.earliestBegin = earliestBegin
            self.requiresNetworkConnectivity = requiresNetworkConnectivity
            self.requiresExternalPower = requiresExternalPower
            self.strategy = strategy
        }
    }

    /// Submits a request for `topic`'s app on `device`, as `BGTaskScheduler.submit` does.
    /// Throws a `TaskSubmitError` (Apple's code) when iOS would refuse it, `AppNotInstalled`
    /// when the app was deleted (its token unregistered), `DeviceStopping` while the receiver
    /// shuts down. Returns the request's record once it is committed: pending, with why, or
    /// launched already.
    @discardableResult
    public func submitTask(_ submission: TaskSubmission, device: String, topic: String) async throws -> TaskRequestRecord {
        do {
            return try await submit(submission, device: device, topic: topic)
        } catch let refusal as TaskRefusal {
            throw refusal.error
        }
    }

    /// `submitTask`, throwing a refusal as a `TaskRefusal`, with what held the task.
    package func submit(_ submission: TaskSubmission, device: String, topic: String) async throws -> TaskRequestRecord {
        let device = Self.stored(device)
        try requireInstalled(device)
        let declaration = declarations[topic]
        // The recorder numbers the request (id 0 here is replaced) and replies with its id.
        let request = TaskRequest(
            id: 0, identifier: submission.identifier, kind: submission.kind, earliestBegin: submission.earliestBegin,
            requiresNetworkConnectivity: submission.requiresNetworkConnectivity, requiresExternalPower: submission.requiresExternalPower,
            strategy: submission.strategy)
        let taken = Mutex<UInt64>(0)
        let refusal: TaskRefusal? = try await withCheckedThrowingContinuation { continuation in
            let reply = runtime.modifyStateAndRunActions { recorder, now in
                recorder.submitTask(
                    TaskRequestRecord(deviceToken: device, topic: topic, request: request, submittedAt: now), declaration: declaration,
                    now: now
                ) { continuation.resume(with: $0.map { nil }) }
            }
            switch reply {
            case .taskRefused(let refusal): continuation.resume(returning: refusal)
            case .taskSubmitted(let id): taken.withLock { $0 = id }
            case .stopping: continuation.resume(throwing: DeviceStopping())
            default: break
            }
        }
        let id = taken.withLock { $0 }
        if let refusal {
            runtime.logger.debug(
                "task request refused",
                metadata: ["task.identifier": "\(submission.identifier)", "task.error": "\(refusal.error.rawValue)", "app.topic": "\(topic)"])
            throw refusal
        }
        guard let record = try await store.taskRequest(id: id) else { throw TaskReadError(request: id) }
        return record
    }

    /// Cancels `topic`'s request `identifier` on `device` (nil: every request of the app).
    /// Returns how many were pending, once their ends are committed.
    @discardableResult
    public func cancelTasks(identifier: String? = nil, device: String, topic: String) async throws -> Int {
        let device = Self.stored(device)
        let reply = try await runtime.committing { recorder, now, completion in
            recorder.cancelTasks(identifier: identifier, for: DeviceRuntime.AppKey(device: device, topic: topic), now: now, completion: completion)
        }
        guard case .cancelledTasks(let count) = reply else { return 0 }
        return count
    }

    /// The debugger's `_simulateLaunchForTaskWithIdentifier`: launches the pending request
    /// now, whatever holds it. Returns false when none is pending.
    public func simulateTaskLaunch(identifier: String, device: String, topic: String) async throws -> Bool {
        let device = Self.stored(device)
        return try await simulateTask(identifier, expire: false, device: device, topic: topic)
    }

    /// The debugger's `_simulateExpirationForTaskWithIdentifier`: the running task's time is
    /// up now. Returns false when none is running.
    public func simulateTaskExpiration(identifier: String, device: String, topic: String) async throws -> Bool {
        let device = Self.stored(device)
        return try await simulateTask(identifier, expire: true, device: device, topic: topic)
    }

    private func simulateTask(_ identifier: String, expire: Bool, device: String, topic: String) async throws -> Bool {
        let reply = try await runtime.committing { recorder, now, completion in
            recorder.simulateTask(
                identifier, expire: expire, for: DeviceRuntime.AppKey(device: device, topic: topic), now: now, completion: completion)
        }
        return reply == .found(true)
    }

    /// Task requests of `topic`'s app on `device`, newest first (only pending ones when asked).
    public func taskRequests(device: String, topic: String, pendingOnly: Bool = false) async throws -> [TaskRequestRecord] {
        let device = Self.stored(device)
        return try await store.taskRequests(deviceToken: device, topic: topic, pendingOnly: pendingOnly)
    }

    /// Background transfers, newest first, for a device, topic, session and/or the wake that
    /// handed them over.
    public func transfers(
        device: String? = nil, topic: String? = nil, session: String? = nil, wakeID: UInt64? = nil, taskRunID: UInt64? = nil,
        before: UInt64? = nil, limit: Int = 100
    ) async throws -> [TransferRecord] {
        try await store.transfers(
            deviceToken: device.map(Self.stored), topic: topic, session: session, wakeID: wakeID, taskRunID: taskRunID, before: before, limit: limit)
    }

    /// Requests that never ran (cancelled or replaced), the last to end first, for a device
    /// and/or topic.
    func endedTaskRequests(device: String? = nil, topic: String? = nil, limit: Int = 100) async throws -> [TaskRequestRecord] {
        try await store.endedTaskRequests(deviceToken: device.map(Self.stored), topic: topic, limit: limit)
    }

    /// Task runs, newest first, for a device and/or topic.
    public func taskRuns(device: String? = nil, topic: String? = nil, limit: Int = 100) async throws -> [TaskRunRecord] {
        let device = device.map(Self.stored)
        return try await store.taskRuns(deviceToken: device, topic: topic, limit: limit)
    }
}

/// A request accepted a moment ago was not in the store.
struct TaskReadError: Error, CustomStringConvertible {
    let request: UInt64
    var description: String { "task request \(request) is missing from the store" }
}
