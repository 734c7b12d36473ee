/// A device's widget and control reloads by push (`apns-push-type` `widgets` and `controls`),
/// as a state machine: every event takes the device clock's `now` and returns what to record;
/// it never sleeps and never reads a clock. Call `advance(to:)` when `nextDeadline` comes.
///
/// Rules, each quoted or marked *assumed* in `docs/live-activities.md`:
/// - "When WidgetKit receives a push notification, it reloads your timelines": a push with
///   `content-changed` reloads its extension (the app's widgets, or its controls) at once.
/// - "the system budgets WidgetKit push notifications and delivers them opportunistically":
///   each extension on a device reloads at most `dailyBudget` times in any 24 hours
///   (*assumed*: 70, the top of Apple's "from 40 to 70 refreshes" a day for a widget the user
///   views often). Over it, the push waits until the oldest reload is 24 hours old; a later
///   push replaces the one waiting, since one reload shows the latest state.
/// - While the device is offline APNs holds the extension's latest push (its storage keeps
///   one per app and push type) and delivers it on reconnect, unless its `apns-expiration`
///   passed first.
///
/// A reload runs no app code and spends none of the device's background launches.
public struct ReloadPolicy: Sendable {
    /// The most reloads one extension on one device makes in any 24 hours; nil: no budget
    /// (the `debugger` and `off` profiles).
    public let dailyBudget: Int?
    /// The longest APNs keeps a push for an offline device (`WakeSettings.apnsStorageLimit`).
    public let apnsStorageLimit: Duration
    /// Each device's extensions, by topic.
    private var devices: [String: [String: Extension]] = [:]
    private var timers = InstantHeap<DeviceInstant, Target>()

    private static let day = WakeSettings.budgetWindow

    /// An extension on a device: a `….push-type.widgets` or `….push-type.controls` topic.
    public struct Target: Hashable, Sendable {
        /// The device's token.
        public var device: String
        /// The extension's topic: the bundle id with its `.push-type.widgets` or `.push-type.controls` suffix.
        public var topic: String

        /// The extension `topic` on the device with token `device`.
        public init(device: String, topic: String) {
            self.device = device
            self.topic = topic
        }
    }

    /// A widget or control push the device receives (`id`: the store's reference). `expiresAt`:
    /// when APNs stops holding it for an offline device (nil: never).
    public struct Push: Sendable, Equatable {
        /// The store's reference for it.
        public var id: UInt64
        /// The extension it reloads.
        public var target: Target
        /// When APNs stops holding it for an offline device (nil: never).
        public var expiresAt: DeviceInstant?
        /// When APNs took it, if before the step that gives it to the policy (one put back
        /// by a restart): APNs's storage limit for an offline device counts from then.
        public var receivedAt: DeviceInstant?

        /// A push for `target`; `receivedAt` nil: APNs took it at the step that gives it to the policy.
        public init(id: UInt64, target: Target, expiresAt: DeviceInstant? = nil, receivedAt: DeviceInstant? = nil) {
            self.id = id
            self.target = target
            self.expiresAt = expiresAt
            self.receivedAt = receivedAt
        }
    }

    /// An extension's latest push, when it has not reloaded yet, and how many pushes it
    /// replaced (they ride its reload).
    struct Held: Equatable {
        /// Where it waits.
        enum Place: Equatable {
            /// On the device, for the budget to refill at `until` (nil: a budget of 0).
            case budget(until: DeviceInstant?)
            /// At APNs: the device is offline.
            case apns
        }

        var push: Push
        var place: Place
        var riders: Int
    }

    struct Extension: Equatable {
        /// When it reloaded within the last 24 hours, oldest first (at most `dailyBudget`).
        var reloads: [DeviceInstant] = []
        var held: Held?
    }

    /// The policy `settings` make: their reload budget (none unless throttling is on) and
    /// APNs's storage limit.
    package init(settings: WakeSettings) {
        self.init(dailyBudget: settings.effectiveReloadBudget, apnsStorageLimit: settings.apnsStorageLimit)
    }

    /// A policy with `dailyBudget` reloads per extension per day (nil: no budget), whose
    /// pushes for an offline device APNs keeps up to their expiry or `apnsStorageLimit`.
    public init(dailyBudget: Int?, apnsStorageLimit: Duration = WakeSettings.defaultAPNsStorageLimit) {
        self.dailyBudget = dailyBudget.map { max(0, $0) }
        self.apnsStorageLimit = apnsStorageLimit
    }

    /// When the next held push may reload or expire; nil when nothing waits on the clock.
    public var nextDeadline: DeviceInstant? { timers.nextDue }

    /// Every push an extension holds back: what the store must keep pending.
    public var heldPushes: [UInt64] { devices.values.flatMap { $0.values.compactMap { $0.held?.push.id } } }

    /// The push an extension holds back, if any.
    public func held(_ target: Target) -> UInt64? { devices[target.device]?[target.topic]?.held?.push.id }

    /// Reloads `target` made in the 24 hours before `now`.
    public func reloadsUsed(_ target: Target, now: DeviceInstant) -> Int {
        let since = now.advanced(by: .zero - Self.day)
        return devices[target.device]?[target.topic]?.reloads.count { $0 > since } ?? 0
    }

    /// A push for an extension; `online`: whether the device is online now.
    public mutating func receive(_ push: Push, online: Bool, now: DeviceInstant) -> [ReloadAction] {
        var actions = advance(to: now)
        // Kept by APNs for an offline device up to its expiry, or APNs's storage limit from
        // when APNs took it.
        let expiresAt = DeviceInstant.apnsHeldExpiry(push.expiresAt, arrivedAt: min(push.receivedAt ?? now, now), limit: apnsStorageLimit)
        if !online, expiresAt <= now {
            // `apns-expiration` 0, a time already past, or kept past the limit already (while
            // the receiver was stopped): APNs does not store it, so it replaces nothing held.
            actions.append(.expired(push: push.id, coalesced: 0))
            return actions
        }
        var riders = 0
        if let held = devices[push.target.device]?[push.target.topic]?.held {
            // One reload shows the latest state: the held push rides the one that replaced it.
            devices[push.target.device]?[push.target.topic]?.held = nil
            riders = held.riders + 1
            actions.append(.replaced(held: held.push.id, by: push.id, atAPNs: held.place == .apns))
        }
        guard online else {
            var kept = push
            kept.expiresAt = expiresAt
            devices[push.target.device, default: [:]][push.target.topic, default: Extension()].held = Held(
                push: kept, place: .apns, riders: riders)
            timers.insert(push.target, at: expiresAt)
            actions.append(.wait(push: push.id, why: .offline))
            return actions
        }
        deliver(push, riders: riders, now: now, into: &actions)
        return actions
    }

    /// The device came back online: each extension's push APNs held is delivered to it.
    public mutating func deviceOnline(_ device: String, now: DeviceInstant) -> [ReloadAction] {
        var actions = advance(to: now)
        for topic in (devices[device] ?? [:]).keys.sorted() {
            guard let held = devices[device]?[topic]?.held, held.place == .apns else { continue }
            devices[device]?[topic]?.held = nil
            deliver(held.push, riders: held.riders, now: now, into: &actions)
        }
        return actions
    }

    /// Fires what is due by `now`: held pushes whose budget refilled reload, and pushes APNs
    /// held past their expiration expire, each at its own instant.
    public mutating func advance(to now: DeviceInstant) -> [ReloadAction] {
        var actions: [ReloadAction] = []
        while let (at, target) = timers.popDue(now) {
            guard let held = devices[target.device]?[target.topic]?.held else { continue }
            switch held.place {
            case .budget(let until?) where until <= at:
                devices[target.device]?[target.topic]?.held = nil
                deliver(held.push, riders: held.riders, now: at, into: &actions)
            case .apns where held.push.expiresAt.map { $0 <= at } ?? false:
                devices[target.device]?[target.topic]?.held = nil
                compact(target)
                actions.append(.expired(push: held.push.id, coalesced: held.riders))
            case .budget, .apns:
                continue  // a stale timer: the push it was armed for was replaced
            }
        }
        return actions
    }

    /// Puts back what a restarted receiver found: `target`'s reloads in the last 24 hours.
    public mutating func restore(reloads: [DeviceInstant], of target: Target, now: DeviceInstant) {
        guard dailyBudget != nil else { return }  // nothing to count
        let since = now.advanced(by: .zero - Self.day)
        devices[target.device, default: [:]][target.topic, default: Extension()].reloads = reloads.filter { $0 > since }.sorted()
    }

    /// The app on `device` was deleted (a reinstall gives it a new token): what its
    /// extensions held never reloads, and their reloads are no longer counted.
    public mutating func appDeleted(device: String) -> [ReloadAction] {
        let held = (devices[device] ?? [:]).keys.sorted().compactMap { devices[device]?[$0]?.held }
        devices[device] = nil
        return held.map { .appDeleted(push: $0.push.id, coalesced: $0.riders) }
    }

    /// Forgets `device` (nil: every device).
    public mutating func forget(device: String?) {
        if let device { devices[device] = nil } else { devices = [:] }
    }

    /// Forgets the devices `forgetting` selects.
    public mutating func forget(where forgetting: (String) -> Bool) {
        devices = devices.filter { !forgetting($0.key) }
    }

    /// Keeps `state` for `target`; an extension with no reload to count and nothing held is
    /// not kept (nor a device with no extension kept).
    private mutating func set(_ state: Extension, for target: Target) {
        guard state == Extension() else {
            devices[target.device, default: [:]][target.topic] = state
            return
        }
        devices[target.device]?[target.topic] = nil
        if devices[target.device]?.isEmpty == true { devices[target.device] = nil }
    }

    /// Drops `target`'s entry when it has nothing left (no reload to count, nothing held).
    private mutating func compact(_ target: Target) {
        if let state = devices[target.device]?[target.topic] { set(state, for: target) }
    }

    /// Tracked extensions, on every device: what the policy holds in memory.
    package var trackedExtensions: Int { devices.values.reduce(0) { $0 + $1.count } }

    /// Reloads `push`'s extension now, or holds it for the budget.
    private mutating func deliver(_ push: Push, riders: Int, now: DeviceInstant, into actions: inout [ReloadAction]) {
        let target = push.target
        var state = devices[target.device]?[target.topic] ?? Extension()
        state.held = nil
        guard let budget = dailyBudget else {
            // No budget: nothing to count, so nothing kept of the extension.
            set(state, for: target)
            actions.append(.reload(push: push.id, target: target, at: now, coalesced: riders, used: 0, budget: nil))
            return
        }
        let since = now.advanced(by: .zero - Self.day)
        state.reloads.removeAll { $0 <= since }
        guard state.reloads.count < budget else {
            // The budget refills when the reload that filled it is 24 hours old; a budget of
            // 0 never does.
            let until = budget > 0 ? state.reloads[state.reloads.count - budget].advanced(by: Self.day) : nil
            state.held = Held(push: push, place: .budget(until: until), riders: riders)
            devices[target.device, default: [:]][target.topic] = state
            if let until { timers.insert(target, at: until) }
            actions.append(.wait(push: push.id, why: .reloadBudget(used: state.reloads.count, budget: budget, until: until)))
            return
        }
        state.reloads.append(now)
        devices[target.device, default: [:]][target.topic] = state
        actions.append(.reload(push: push.id, target: target, at: now, coalesced: riders, used: state.reloads.count, budget: budget))
    }
}
