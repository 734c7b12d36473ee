import SilentPushCore
import Synchronization

/// What a task handler gets for one run of a background task, as iOS hands a `BGTask` to the
/// handler registered for its identifier: set ``expirationHandler``, do the work, and call
/// ``setTaskCompleted(success:)`` once. When time runs out the expiration handler is called
/// and the handler's Swift task is cancelled; a run that never completes is terminated after
/// a grace period, and the app's later task launches are deferred.
public final class BackgroundTask: Sendable {
    /// The run's id, as the admin API's `/v1/task-runs` reports it.
    public let runID: UInt64
    /// The device the app is on.
    public let deviceToken: String
    /// The app's topic.
    public let topic: String
    /// The task identifier the request was submitted with.
    public let identifier: String
    /// The request's kind (`urlSession` for a relaunch).
    public let kind: BackgroundTaskKind
    /// When the run started, on the device clock.
    public let startedAt: DeviceInstant
    /// When the expiration handler is due, on the device clock; nil for a continued task.
    public let deadline: DeviceInstant?
    /// Launched by `simulate-launch` rather than by the scheduler.
    public let simulated: Bool
    /// The request the run launched for.
    public let requestID: UInt64
    /// For a relaunch (`urlSession`): the background session's identifier.
    public var session: String? { kind == .urlSession ? identifier : nil }

    /// What the device side hears from the handler.
    package enum Report: Sendable {
        case completed(success: Bool)
        case progress(completed: Int64, total: Int64)
    }

    private struct State {
        var expirationHandler: (@Sendable () -> Void)?
        var expired = false
        var completed = false
        /// How the run's handler side ended, first come: it returned, or the receiver's stop
        /// interrupted it (nil: neither yet).
        var ending: Ending?
        var reports: (@Sendable (Report) -> Void)?
        var context: FetchContext?
        var files: [TransferFile] = []
    }

    private let state = Mutex(State())
    /// Raised once the run expires: the runtime cancels the handler's task then.
    let expiration = AsyncSignal()
    /// Raised when the run is terminated (it never completed after expiring), or interrupted.
    let termination = AsyncSignal()
    /// Opened when the run ends or its handler returns: a manual-clock advance about to
    /// expire or terminate it, and `settle()`, wait for this first.
    let settled = AsyncLatch()

    init(_ start: TaskStart<DeviceRuntime.AppKey, DeviceInstant>) {
        runID = start.runID
        deviceToken = start.app.deviceToken
        topic = start.app.topic
        identifier = start.request.identifier
        kind = start.request.kind
        startedAt = start.startedAt
        deadline = start.deadline
        simulated = start.simulated
        requestID = start.request.id
    }

    /// For a relaunch (`urlSession`): the session's transfers, each with its file. A file the
    /// handler does not move away is deleted when the run's handler returns.
    public var files: [TransferFile] { state.withLock { $0.files } }

    /// Hands `request` to the device's background `URLSession`, as a task's handler may.
    /// Returns the transfer's id; throws the refusal (recorded with the run).
    @discardableResult
    public func startBackgroundTransfer(_ request: TransferRequest) throws(TransferRefusal) -> UInt64 {
        guard let context = state.withLock({ $0.context }) else { throw .notRunning }
        return try context.startBackgroundTransfer(request)
    }

    /// Hands the device a transfer of `url` in `session`; a request it refuses is recorded
    /// with the run and thrown (see `FetchContext.startBackgroundTransfer(session:url:method:discretionary:allowsCellular:sessionSendsLaunchEvents:fromFile:)`).
    @discardableResult
    public func startBackgroundTransfer(
        session: String, url: String, method: TransferRequest.Method = .GET, discretionary: Bool = TransferRequest.defaultDiscretionary,
        allowsCellular: Bool = TransferRequest.defaultAllowsCellular,
        sessionSendsLaunchEvents: Bool = TransferRequest.defaultSessionSendsLaunchEvents, fromFile: String? = nil
    ) throws(TransferRefusal) -> UInt64 {
        guard let context = state.withLock({ $0.context }) else { throw .notRunning }
        return try context.startBackgroundTransfer(
            session: session, url: url, method: method, discretionary: discretionary, allowsCellular: allowsCellular,
            sessionSendsLaunchEvents: sessionSendsLaunchEvents, fromFile: fromFile)
    }

    /// What the handler's hand-overs go through, and the relaunch's files.
    var context: FetchContext? { state.withLock { $0.context } }

    func prepare(context: FetchContext, files: [TransferFile]) {
        state.withLock {
            $0.context = context
            $0.files = files
        }
    }

    /// Called once when the system expires the task (its time is up, the debugger's
    /// `simulate-expiration`, a continued task stopped under resource pressure, a processing
    /// task when the device stops being idle). Set after the expiry, it is called at once.
    /// A run with none is completed, unsuccessfully, when it expires.
    public var expirationHandler: (@Sendable () -> Void)? {
        get { state.withLock { $0.expirationHandler } }
        set {
            let callNow = state.withLock { state -> Bool in
                state.expirationHandler = newValue
                return state.expired
            }
            if callNow { newValue?() }
        }
    }

    /// The time the run has before its expiration handler (nil deadline: none, as for a
    /// continued task).
    var timeLimit: Duration { deadline.map { startedAt.duration(to: $0) } ?? .zero }

    /// The run as JSON: what an `exec` command reads on stdin and an `http` handler is POSTed.
    var json: JSONValue {
        .object(
            [
                ("runId", .int(Int64(bitPattern: runID))), ("deviceToken", .string(deviceToken)), ("topic", .string(topic)),
                ("identifier", .string(identifier)), ("kind", .string(kind.rawValue)),
                ("startedAt", .string(ISO8601Timestamp.string(millisecondsSinceEpoch: startedAt.millisecondsSinceEpoch))),
                ("deadline", .string(deadline.map { ISO8601Timestamp.string(millisecondsSinceEpoch: $0.millisecondsSinceEpoch) })),
                ("simulated", .bool(simulated)),
            ] + (kind == .urlSession ? [("session", .string(identifier)), ("files", .array(files.map(\.json)))] : []))
    }

    /// Whether the task has expired.
    public var isExpired: Bool { state.withLock { $0.expired } }

    /// Whether its handler said it is done (`setTaskCompleted`), or the receiver's stop cut it.
    var isSettled: Bool {
        state.withLock { state in
            if case .interrupted? = state.ending { return true }
            return state.completed
        }
    }

    /// Ends the run (`BGTask.setTaskCompleted(success:)`); later calls are ignored.
    public func setTaskCompleted(success: Bool) {
        let reports = state.withLock { state -> (@Sendable (Report) -> Void)? in
            guard !state.completed else { return nil }
            state.completed = true
            return state.reports
        }
        reports?(.completed(success: success))
    }

    /// A continued task's progress (`BGContinuedProcessingTask.progress`): `completed` of
    /// `total` units. Under resource pressure the run with the least progress is stopped first.
    public func updateProgress(completed: Int64, total: Int64) {
        let reports = state.withLock { $0.completed ? nil : $0.reports }
        reports?(.progress(completed: completed, total: total))
    }

    /// Connects the run to the device side before its handler starts.
    func connect(_ reports: @escaping @Sendable (Report) -> Void) {
        state.withLock { $0.reports = reports }
    }

    /// How the handler side of a run ended, whichever came first.
    enum Ending {
        /// The handler returned: a relaunch's files are settled.
        case returned
        /// The receiver's stop came first: a relaunch's files are left for the next start.
        case interrupted
    }

    /// The receiver stops under the run: its handler is stopped as a terminated one is.
    /// Returns whether this came before the handler returned (then a relaunch's files are
    /// left for the relaunch the next start runs).
    @discardableResult
    func interrupt() -> Bool {
        let first = state.withLock { state in
            guard state.ending == nil else { return false }
            state.ending = .interrupted
            return true
        }
        termination.raise()
        return first
    }

    /// The handler returned. Returns whether this came before an interruption (then a
    /// relaunch's files are settled now).
    func handlerReturned() -> Bool {
        state.withLock { state in
            guard state.ending == nil else { return false }
            state.ending = .returned
            return true
        }
    }

    /// The system expires the run: the expiration handler is called, then the handler's task
    /// is cancelled.
    /// Without an expiration handler the run is completed, unsuccessfully, at once (Apple:
    /// "Not setting an expiration handler results in the system marking your task as complete
    /// and unsuccessful instead of sending a warning").
    func expire() {
        let (first, handler) = state.withLock { state -> (Bool, (@Sendable () -> Void)?) in
            guard !state.expired else { return (false, nil) }
            state.expired = true
            return (true, state.expirationHandler)
        }
        guard first else { return }
        handler?()
        expiration.raise()
        if handler == nil { setTaskCompleted(success: false) }
    }
}
