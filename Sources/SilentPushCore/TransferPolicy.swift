/// The device's background `URLSession` transfers, as a state machine: every event takes the
/// device clock's `now` and returns what to do; it never sleeps, never reads a clock and does
/// no I/O (the executor runs each transfer against its origin and reports how it ended).
/// Call `advance(to:)` when `nextDeadline` comes.
///
/// Rules (`docs/background-transfers.md` quotes Apple or marks them *assumed*):
/// - a transfer runs only online; with `allowsCellular: false` only on Wi-Fi; a
///   `discretionary` one only on Wi-Fi, on external power, out of Low Power Mode;
/// - one cut off (the network went, the origin failed) is retried after a delay that doubles
///   from `retryDelay` up to `maximumRetryDelay`, when its conditions hold; past
///   `resourceTimeout` after it was handed over it fails;
/// - force-quitting the app cancels its transfers, and nothing relaunches it;
/// - once every transfer of a session has ended and the session sends launch events, the app
///   is relaunched for that session (`relaunch`).
public struct TransferPolicy: Sendable {
    /// The numbers it runs by.
    public struct Settings: Sendable, Equatable {
        /// Transfers of one app not yet ended, at most (*assumed*: Apple gives none).
        public var maximumPerApp: Int
        /// The largest `maximumPerApp` a flag may set.
        public static let maximumCap = 10_000
        /// The first retry's delay, doubled for each later one (*assumed*).
        public var retryDelay: Duration
        /// The longest retry delay (*assumed*).
        public var maximumRetryDelay: Duration
        /// How long a transfer may take, waits included (Apple's default
        /// `timeoutIntervalForResource`: 7 days).
        public var resourceTimeout: Duration
        /// How long a try waits to connect, or for the origin's next bytes, before it is cut
        /// off (Apple's default `timeoutIntervalForRequest`: 60 s). The executor's client
        /// keeps it; the policy sees only the try's end.
        public var requestTimeout: Duration

        /// Settings; by default 100 transfers per app, retry delays from 60 s to 1 hour, and Apple's default timeouts.
        public init(
            maximumPerApp: Int = 100, retryDelay: Duration = .seconds(60), maximumRetryDelay: Duration = .seconds(3600),
            resourceTimeout: Duration = .seconds(7 * 86_400), requestTimeout: Duration = .seconds(60)
        ) {
            self.maximumPerApp = maximumPerApp
            self.retryDelay = retryDelay
            self.maximumRetryDelay = maximumRetryDelay
            self.resourceTimeout = resourceTimeout
            self.requestTimeout = requestTimeout
        }
    }

    /// What the device offers a transfer now.
    public struct Conditions: Sendable, Equatable {
        /// The device has a network.
        public var online: Bool
        /// That network is Wi-Fi.
        public var wifi: Bool
        /// The device is on external power.
        public var charging: Bool
        /// Low Power Mode is on.
        public var lowPowerMode: Bool

        /// Conditions, field by field (by default: online on Wi-Fi, not charging, out of Low Power Mode).
        public init(online: Bool = true, wifi: Bool = true, charging: Bool = false, lowPowerMode: Bool = false) {
            self.online = online
            self.wifi = wifi
            self.charging = charging
            self.lowPowerMode = lowPowerMode
        }

        /// What a device in `state` offers.
        public init(_ state: DeviceState) {
            self.init(
                online: state.network == .online, wifi: state.networkType == .wifi, charging: state.charging,
                lowPowerMode: state.lowPowerMode)
        }
    }

    /// An app on a device.
    public struct App: Hashable, Sendable {
        /// The device token.
        public var device: String
        /// The app's topic.
        public var topic: String

        /// `topic`'s app on `device`.
        public init(device: String, topic: String) {
            self.device = device
            self.topic = topic
        }
    }

    /// Where a transfer is.
    public enum Phase: Sendable, Equatable {
        /// Its conditions do not hold (or its retry delay runs), for this reason.
        case waiting(WaitReason<DeviceInstant>)
        /// Its `attempt`-th try runs (from 1).
        case running(attempt: Int)
        /// It ended.
        case ended(TransferEnd)
    }

    /// A transfer the policy holds.
    public struct Transfer: Sendable, Equatable {
        /// The transfer's id (its record's).
        public var id: UInt64
        /// The app that handed it over.
        public var app: App
        /// What the app asked for.
        public var request: TransferRequest
        /// When the app handed it over, on the device clock.
        public var handedOverAt: DeviceInstant
        /// Where it is now.
        public var phase: Phase
        /// Tries so far.
        public var attempts: Int
    }

    /// The numbers it runs by.
    public let settings: Settings
    /// Transfers by id: an ended one stays until its session's last transfer ends.
    public private(set) var transfers: [UInt64: Transfer] = [:]
    /// Each device's transfers not yet ended.
    private var byDevice: [String: Set<UInt64>] = [:]
    private var conditions: [String: Conditions] = [:]
    private var timers = InstantHeap<DeviceInstant, UInt64>()

    /// A policy with no transfer.
    public init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// When a retry delay or a resource timeout ends next.
    public var nextDeadline: DeviceInstant? { timers.nextDue }

    /// Devices with a transfer not ended: what the policy keeps per device.
    package var trackedDevices: Int { byDevice.count }

    /// Whether `app`'s transfers not yet ended are at the cap: a hand-over now is refused.
    public func isAtCap(_ app: App) -> Bool {
        byDevice[app.device, default: []].count { transfers[$0]?.app == app } >= settings.maximumPerApp
    }

    /// The app hands the device `request` as transfer `id`, with the device's `conditions`
    /// now. Throws `tooMany` at the app's cap, and `launchEventsDiffer` when the session's
    /// other transfers say otherwise of `sessionSendsLaunchEvents` (nothing is kept then).
    public mutating func submit(
        _ request: TransferRequest, id: UInt64, for app: App, conditions: Conditions, now: DeviceInstant
    ) throws(TransferRefusal) -> [TransferAction] {
        var actions = advance(to: now)
        guard !isAtCap(app) else { throw .tooMany }
        // A session's configuration, as URLSessionConfiguration has it: one value for all its tasks.
        let differs = transfers.values.contains {
            $0.app == app && $0.request.session == request.session && $0.request.sessionSendsLaunchEvents != request.sessionSendsLaunchEvents
        }
        guard !differs else { throw .launchEventsDiffer }
        self.conditions[app.device] = conditions
        transfers[id] = Transfer(id: id, app: app, request: request, handedOverAt: now, phase: .waiting(.offline), attempts: 0)
        byDevice[app.device, default: []].insert(id)
        timers.insert(id, at: now.advanced(by: settings.resourceTimeout))
        tryToStart(id, now: now, into: &actions, announce: true)
        return actions
    }

    /// The device's conditions changed: waiting transfers whose conditions now hold start,
    /// and running ones whose conditions no longer hold are cut off (they resume later).
    public mutating func conditionsChanged(_ conditions: Conditions, device: String, now: DeviceInstant) -> [TransferAction] {
        var actions = advance(to: now)
        // Kept only while the device has a transfer not ended (a hand-over says them anew).
        guard byDevice[device] != nil else { return actions }
        self.conditions[device] = conditions
        for id in (byDevice[device] ?? []).sorted() {
            guard let transfer = transfers[id] else { continue }
            switch transfer.phase {
            case .running:
                if let why = Self.wait(transfer.request, conditions) {
                    actions.append(.interrupt(id: id))
                    setPhase(id, .waiting(why), into: &actions)
                }
            case .waiting(let why) where why.rule != .transferRetry:
                tryToStart(id, now: now, into: &actions)
            case .waiting, .ended:
                break
            }
        }
        return actions
    }

    /// Transfer `id`'s try ended: `completed` (the origin answered in full; its bytes kept),
    /// or cut off (retried later).
    public mutating func finished(_ id: UInt64, completed bytes: Int64?, now: DeviceInstant) -> [TransferAction] {
        var actions = advance(to: now)
        guard let transfer = transfers[id], case .running = transfer.phase else { return actions }
        guard let bytes else {
            let attempt = transfer.attempts
            let delay = min(settings.retryDelay * (1 << min(attempt - 1, 20)), settings.maximumRetryDelay)
            let until = now.advanced(by: delay)
            setPhase(id, .waiting(.transferRetry(attempt: attempt + 1, until: until)), into: &actions)
            timers.insert(id, at: until)
            return actions
        }
        end(id, .done(bytes: bytes), now: now, into: &actions)
        return actions
    }

    /// Transfer `id`'s try found it can never be done (an upload whose copy of its file is not
    /// on this receiver, too many redirects, an untrusted server certificate): it fails now,
    /// with `reason`, instead of being retried.
    public mutating func cannotComplete(_ id: UInt64, reason: String, now: DeviceInstant) -> [TransferAction] {
        var actions = advance(to: now)
        guard let transfer = transfers[id], case .running = transfer.phase else { return actions }
        end(id, .failed(reason: reason), now: now, into: &actions)
        return actions
    }

    /// The user force-quit the app on `device`: its transfers are cancelled, and no relaunch
    /// follows (Apple: "If the user force-quits your app, the system cancels all of the
    /// session's background transfers").
    public mutating func forceQuit(device: String, now: DeviceInstant) -> [TransferAction] {
        var actions = advance(to: now)
        // Done ones whose session had others still open: never handed over now.
        for transfer in transfers.values.filter({ $0.app.device == device }).sorted(by: { $0.id < $1.id }) {
            if case .ended(.done) = transfer.phase { actions.append(.abandon(id: transfer.id)) }
        }
        for id in (byDevice[device] ?? []).sorted() {
            if case .running? = transfers[id]?.phase { actions.append(.interrupt(id: id)) }
            setPhase(id, .ended(.cancelled), into: &actions)
        }
        byDevice[device] = nil
        conditions[device] = nil
        transfers = transfers.filter { $0.value.app.device != device }
        return actions
    }

    /// Puts back a transfer a restarted receiver found: handed over at `handedOverAt`, tried
    /// `attempts` times, and ended as `ended` (a done transfer whose session's relaunch was
    /// not yet asked for) or not. One not ended starts again when its conditions hold (a try
    /// that was running resumes from the bytes kept). Put back every transfer of a session,
    /// then call `resumeSessions(now:)`.
    public mutating func restore(
        _ request: TransferRequest, id: UInt64, for app: App, handedOverAt: DeviceInstant, attempts: Int, ended: TransferEnd?,
        retry: (attempt: Int, until: DeviceInstant)? = nil, conditions: Conditions, now: DeviceInstant
    ) -> [TransferAction] {
        // A retry still to come waits for its time, as it did before the restart.
        let retrying = ended == nil ? retry.flatMap { $0.until > now ? $0 : nil } : nil
        transfers[id] = Transfer(
            id: id, app: app, request: request, handedOverAt: handedOverAt,
            phase: ended.map(Phase.ended) ?? retrying.map { .waiting(.transferRetry(attempt: $0.attempt, until: $0.until)) } ?? .waiting(.offline),
            attempts: min(max(0, attempts), Int(Int32.max)))  // a stored count, bounded so its next try cannot overflow
        guard ended == nil else { return [] }
        self.conditions[app.device] = conditions
        byDevice[app.device, default: []].insert(id)
        timers.insert(id, at: handedOverAt.advanced(by: settings.resourceTimeout))
        if let retrying { timers.insert(id, at: retrying.until) }
        var actions = advance(to: now)
        if retrying == nil, case .waiting? = transfers[id]?.phase { tryToStart(id, now: now, into: &actions, announce: true) }
        return actions
    }

    /// After a restart's `restore` calls: sessions whose every transfer had ended relaunch
    /// the app now (the previous run stopped before it asked).
    public mutating func resumeSessions(now: DeviceInstant) -> [TransferAction] {
        var actions: [TransferAction] = []
        let sessions = Dictionary(grouping: transfers.values) { SessionKey(app: $0.app, session: $0.request.session) }
        for key in sessions.keys.sorted(by: { $0.first(in: sessions) < $1.first(in: sessions) }) {
            let session = sessions[key]!
            guard session.allSatisfy({ if case .ended = $0.phase { true } else { false } }), let last = session.max(by: { $0.id < $1.id })
            else { continue }
            actions += closeSession(of: last)
        }
        return actions
    }

    private struct SessionKey: Hashable {
        var app: App
        var session: String

        func first(in sessions: [SessionKey: [Transfer]]) -> UInt64 { sessions[self]?.map(\.id).min() ?? 0 }
    }

    /// Forgets `device`'s transfers (nil: every device's), saying nothing: their records go too.
    public mutating func forget(device: String?) -> [UInt64] {
        let gone = transfers.values.filter { device == nil || $0.app.device == device }.map(\.id).sorted()
        for id in gone { transfers[id] = nil }
        if let device {
            byDevice[device] = nil
            conditions[device] = nil
        } else {
            byDevice = [:]
            conditions = [:]
        }
        return gone
    }

    /// Forgets the transfers of the devices `forgetting` selects; returns their ids.
    public mutating func forget(where forgetting: (String) -> Bool) -> [UInt64] {
        byDevice.keys.filter(forgetting).sorted().flatMap { forget(device: $0) }
    }

    /// Fires what is due by `now`: retries whose delay ended, transfers past their resource timeout.
    public mutating func advance(to now: DeviceInstant) -> [TransferAction] {
        var actions: [TransferAction] = []
        while let (at, id) = timers.popDue(now) {
            guard let transfer = transfers[id] else { continue }
            if case .ended = transfer.phase { continue }
            if at >= transfer.handedOverAt.advanced(by: settings.resourceTimeout) {
                if case .running = transfer.phase { actions.append(.interrupt(id: id)) }
                let timeout = WaitReason<DeviceInstant>.words(settings.resourceTimeout)
                end(id, .failed(reason: "timed out: not done within the resource timeout (\(timeout), --transfer-timeout)"), now: at, into: &actions)
            } else if case .waiting(.transferRetry(_, let until)) = transfer.phase, until <= at {
                tryToStart(id, now: at, into: &actions)
            }
        }
        return actions
    }

    /// Why `request` cannot run under `conditions`; nil when it can.
    static func wait(_ request: TransferRequest, _ conditions: Conditions) -> WaitReason<DeviceInstant>? {
        guard conditions.online else { return .offline }
        if request.discretionary, !conditions.wifi || !conditions.charging || conditions.lowPowerMode {
            return .discretionary(wifi: conditions.wifi, charging: conditions.charging, lowPowerMode: conditions.lowPowerMode)
        }
        if !request.allowsCellular, !conditions.wifi { return .wifiRequired }
        return nil
    }

    /// Starts `id` if its conditions hold, else records why it waits (`announce`: even when
    /// the reason is the one it had, for a transfer just handed over).
    private mutating func tryToStart(_ id: UInt64, now: DeviceInstant, into actions: inout [TransferAction], announce: Bool = false) {
        guard let transfer = transfers[id] else { return }
        if let why = Self.wait(transfer.request, conditions[transfer.app.device] ?? Conditions()) {
            setPhase(id, .waiting(why), into: &actions, force: announce)
            return
        }
        transfers[id]?.attempts += 1
        setPhase(id, .running(attempt: transfer.attempts + 1), into: &actions)
        actions.append(.start(id: id, attempt: transfer.attempts + 1))
    }

    /// Records `phase`, saying so unless nothing changed (`force`: say it anyway).
    private mutating func setPhase(_ id: UInt64, _ phase: Phase, into actions: inout [TransferAction], force: Bool = false) {
        guard force || transfers[id]?.phase != phase else { return }
        transfers[id]?.phase = phase
        actions.append(.phase(id: id, phase))
    }

    private mutating func end(_ id: UInt64, _ end: TransferEnd, now: DeviceInstant, into actions: inout [TransferAction]) {
        guard let transfer = transfers[id] else { return }
        setPhase(id, .ended(end), into: &actions)
        byDevice[transfer.app.device]?.remove(id)
        if byDevice[transfer.app.device]?.isEmpty == true {
            byDevice[transfer.app.device] = nil
            conditions[transfer.app.device] = nil
        }
        let open = transfers.values.contains { other in
            guard other.app == transfer.app, other.request.session == transfer.request.session else { return false }
            if case .ended = other.phase { return false }
            return true
        }
        if !open { actions += closeSession(of: transfer) }
    }

    /// `transfer`'s session has no transfer left to end: the app is relaunched for it, if it
    /// asked and none was cancelled, and the session is forgotten.
    private mutating func closeSession(of transfer: Transfer) -> [TransferAction] {
        let session = transfers.values.filter { $0.app == transfer.app && $0.request.session == transfer.request.session }
        var actions: [TransferAction] = []
        let cancelled = session.contains { $0.phase == .ended(.cancelled) }
        if !cancelled, transfer.request.sessionSendsLaunchEvents {
            actions.append(.relaunch(app: transfer.app, session: transfer.request.session, transfers: session.map(\.id).sorted()))
        }
        // The session is over: nothing of it is read again.
        for ended in session { transfers[ended.id] = nil }
        return actions
    }
}
