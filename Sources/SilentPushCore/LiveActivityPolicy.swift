/// A device's Live Activities as ActivityKit keeps them, as a state machine: every event
/// takes the device clock's `now` and returns what to record; it never sleeps, never reads
/// a clock and makes no ids (the caller passes them in). Call `advance(to:)` when
/// `nextDeadline` comes; every event first fires the timers due before its `now`, each at
/// its own instant.
///
/// Rules, each quoted in `docs/live-activities.md`: updates apply in `timestamp` order and
/// an older one is ignored; pushes after the end are ignored; an ended activity stays until
/// its dismissal date (at most, and by default, 4 hours); `stale-date` marks it stale; it
/// ends after 8 hours active; priority-10 updates spend an hourly budget per app (larger
/// with frequent updates) and over it wait, coalescing to the latest; priority 5 and 1 wait
/// for an opportunity; a broadcast reaches every activity subscribed to its channel, and a
/// Most Recent Message Stored channel's latest message reaches an activity that subscribes
/// later, or whose device was offline, within 8 hours.
public struct LiveActivityPolicy: Sendable {
    /// The numbers its rules run by: budgets, delays, lifetimes.
    public var settings: LiveActivitySettings

    /// Every activity by id, dismissed ones included.
    public private(set) var activities: [String: LiveActivity] = [:]
    /// Update token → activity id.
    private var byToken: [String: String] = [:]
    /// Each device's activities, in the order they began: a device's change looks at its own.
    private var byDevice: [String: [String]] = [:]
    /// Apps, and bundle ids on every device, with `NSSupportsLiveActivitiesFrequentUpdates`.
    private var frequentUpdates: Set<LiveActivityApp> = []
    private var frequentBundles: Set<String> = []
    /// The instants an app's priority-10 updates were applied, within the last hour, oldest first.
    private var spent: [LiveActivityApp: [DeviceInstant]] = [:]
    /// Activities listening on each channel, in the order they subscribed.
    private var subscribers: [ChannelKey: [String]] = [:]
    /// The update each activity holds back, if any.
    private var held: [String: Held] = [:]
    /// Each Most Recent Message Stored channel's latest message, while it is kept.
    private var stored: [ChannelKey: Stored] = [:]
    /// Devices that are offline: pushes and broadcasts wait for them (or are lost).
    private var offline: Set<String> = []
    /// Pushes to the tokens of offline devices, as APNs keeps them: the latest to each token
    /// (*assumed*, as for an app's notifications), each until its `storedUntil`.
    private var keptForOffline: [String: Kept] = [:]
    /// How many pushes were ever kept: their order of arrival.
    private var keptCount: UInt64 = 0
    private var timers = InstantHeap<DeviceInstant, Timer>()
    /// Broadcasts still reaching their subscribers, by source.
    private var fanOuts: [String: FanOut] = [:]

    private static let hour = Duration.seconds(3600)

    /// A channel of an app.
    public struct ChannelKey: Hashable, Sendable {
        /// The app's bundle id.
        public var bundleID: String
        /// The channel's id.
        public var channel: ChannelID

        /// Channel `channel` of app `bundleID`.
        public init(bundleID: String, channel: ChannelID) {
            self.bundleID = bundleID
            self.channel = channel
        }
    }

    /// What a push's device token names on this device.
    public enum Target: Equatable, Sendable {
        /// The app's push-to-start token.
        case pushToStart(LiveActivityApp)
        /// An activity's update token: the activity's id.
        case activity(String)
    }

    /// A Live Activity push to `token` (a push-to-start or update token) for `bundleID`. A
    /// start makes its activity `newActivityID`, with update token `newToken` when it asks for one.
    public struct Push: Sendable {
        /// The push's `apns-id`: the decisions about it name it so.
        public var source: String
        /// The device token it was sent to: a push-to-start or update token.
        public var token: String
        /// The app's bundle id (the topic without its push-type suffix).
        public var bundleID: String
        /// `apns-priority`.
        public var priority: APNsPriority
        /// What its payload says, as ActivityKit reads it.
        public var payload: LiveActivityPayload
        /// The id a start gives the activity it begins.
        public var newActivityID: String
        /// The update token a start gives its activity when the payload asks for one (`input-push-token: 1`).
        public var newToken: String
        /// Until when APNs keeps it for the device while the device is offline: its
        /// `apns-expiration`, at most APNs' storage limit. Not after `now`: not kept (expiration 0).
        public var storedUntil: DeviceInstant

        /// A push, field by field.
        public init(
            source: String, token: String, bundleID: String, priority: APNsPriority, payload: LiveActivityPayload, newActivityID: String,
            newToken: String, storedUntil: DeviceInstant = .distantFuture
        ) {
            self.source = source
            self.token = token
            self.bundleID = bundleID
            self.priority = priority
            self.payload = payload
            self.newActivityID = newActivityID
            self.newToken = newToken
            self.storedUntil = storedUntil
        }
    }

    /// A broadcast on `channel`, received (by whichever receiver of a cluster took it) at
    /// `receivedAt`; `storedUntil` is when its channel stops keeping it (nil: a No Message
    /// Stored channel, or `apns-expiration: 0`).
    public struct Broadcast: Sendable {
        /// The broadcast's `apns-request-id`: the decisions about it name it so.
        public var source: String
        /// The channel it was sent on.
        public var channel: ChannelKey
        /// `apns-priority`.
        public var priority: APNsPriority
        /// What its payload says, as ActivityKit reads it.
        public var payload: LiveActivityPayload
        /// When a receiver took it, on the device clock.
        public var receivedAt: DeviceInstant
        /// When its channel stops keeping it; nil: not kept.
        public var storedUntil: DeviceInstant?
        /// Its record's id in the store (nil: none): retention keeps the one a channel keeps.
        public var recordID: UInt64?

        /// A broadcast, field by field.
        public init(
            source: String, channel: ChannelKey, priority: APNsPriority, payload: LiveActivityPayload, receivedAt: DeviceInstant,
            storedUntil: DeviceInstant?, recordID: UInt64? = nil
        ) {
            self.source = source
            self.channel = channel
            self.priority = priority
            self.payload = payload
            self.receivedAt = receivedAt
            self.storedUntil = storedUntil
            self.recordID = recordID
        }
    }

    /// An update on its way to an activity.
    struct Pending: Sendable {
        var source: String
        var priority: APNsPriority
        var payload: LiveActivityPayload
    }

    struct Held: Sendable {
        var update: Pending
        var due: DeviceInstant
    }

    /// A broadcast on its way to the subscribers it had when it arrived.
    struct FanOut: Sendable {
        var channel: ChannelKey
        var update: Pending
        var storedUntil: DeviceInstant?
        var subscribers: [String]
        var next: Int
    }

    struct Stored: Sendable {
        var update: Pending
        /// When its broadcast was received: a message taken from the store replaces only an older one.
        var receivedAt: DeviceInstant
        var until: DeviceInstant
        /// The activities of offline devices it waits to reach.
        var waiting: [String] = []
        /// Its broadcast's record in the store.
        var recordID: UInt64?
    }

    /// A push APNs keeps while its device is offline (a start's `input-push-channel` is
    /// looked up when it reaches the device: the device subscribes then).
    struct Kept: Sendable {
        var push: Push
        var device: String
        var order: UInt64
    }

    enum Timer: Sendable {
        case release(String)
        case stale(String)
        case dismiss(String)
        case expire(String)
        /// The push kept for an offline device's token is let go.
        case unkeep(String)
        /// The channel's stored message is let go.
        case unstore(ChannelKey)
    }

    /// A policy with no activity.
    public init(settings: LiveActivitySettings = LiveActivitySettings()) {
        self.settings = settings
    }

    /// When `advance(to:)` should next be called; nil: no timer.
    public var nextDeadline: DeviceInstant? { timers.nextDue }

    /// Timers held, stale ones included.
    public var timerCount: Int { timers.count }

    /// What `token`, in a push for `bundleID`, names: an activity's update token, the app's
    /// push-to-start token, or nothing.
    public func target(ofToken token: String, bundleID: String) -> Target? {
        if let id = byToken[token] { return .activity(id) }
        return LiveActivityApp.pushToStart(token: token, bundleID: bundleID).map(Target.pushToStart)
    }

    /// The app whose activity `token` is the update token of; nil for any other token.
    public func app(ofUpdateToken token: String) -> LiveActivityApp? {
        // No lookup (no hash of the token) while no activity has a token: most pushes.
        byToken.isEmpty ? nil : byToken[token].flatMap { activities[$0]?.app }
    }

    /// The app's activities, oldest first.
    public func activities(of app: LiveActivityApp) -> [LiveActivity] {
        (byDevice[app.device] ?? []).compactMap { activities[$0] }.filter { $0.app == app }
            .sorted { ($0.startedAt, $0.id) < ($1.startedAt, $1.id) }
    }

    /// The activities listening on `channel`.
    public func subscriberCount(_ channel: ChannelKey) -> Int { subscribers[channel]?.count ?? 0 }

    /// The update an activity holds back, if any: its source and when it is due.
    public func heldUpdate(of id: String) -> (source: String, due: DeviceInstant)? {
        held[id].map { ($0.update.source, $0.due) }
    }

    /// The app's hourly priority-10 budget; nil: none.
    public func budget(of app: LiveActivityApp) -> Int? { settings.budget(frequentUpdates: hasFrequentUpdates(app)) }

    /// Whether `app` has `NSSupportsLiveActivitiesFrequentUpdates`.
    public func hasFrequentUpdates(_ app: LiveActivityApp) -> Bool { frequentUpdates.contains(app) || frequentBundles.contains(app.bundleID) }

    // MARK: - Events

    /// Forgets every activity of `device` (nil: of every device), with what it held; the
    /// apps' declared frequent updates stay.
    public mutating func forget(device: String?) {
        guard let device else {
            // What the apps declare (the config's frequent updates) outlives their devices' records.
            let declared = frequentBundles
            self = LiveActivityPolicy(settings: settings)
            frequentBundles = declared
            return
        }
        let forgotten = byDevice.removeValue(forKey: device) ?? []
        if !forgotten.isEmpty, !stored.isEmpty {
            for key in stored.keys { stored[key]?.waiting.removeAll { forgotten.contains($0) } }
        }
        for id in forgotten {
            guard let activity = activities.removeValue(forKey: id) else { continue }
            held[activity.id] = nil
            if case .token(let token) = activity.subscription { byToken[token] = nil }
            unsubscribe(activity)
        }
        frequentUpdates = frequentUpdates.filter { $0.device != device }
        spent = spent.filter { $0.key.device != device }
        offline.remove(device)
        keptForOffline = keptForOffline.filter { $0.value.device != device }
    }

    /// The app of `device` (a device token) was deleted, as a reinstall does: its activities
    /// leave the device at once, dismissed, and what waited to reach them (an update held
    /// back, a channel's message or a push APNs kept for the offline device) is ignored
    /// (`appDeleted`).
    public mutating func appDeleted(device: String, now: DeviceInstant) -> [LiveActivityAction] {
        var actions = advance(to: now)
        for id in byDevice[device] ?? [] {
            guard let activity = activities[id] else { continue }
            let endedAt: DeviceInstant
            switch activity.state {
            case .dismissed: continue
            case .ended(let at, _): endedAt = at
            case .active, .stale: endedAt = now
            }
            var gone = activity
            gone.state = .dismissed(at: now, endedAt: endedAt)
            gone.why = "dismissed: the app was deleted (uninstalled or reinstalled)"
            activities[id] = gone
            unsubscribe(activity)
            actions.append(.record(gone))
            if let waiting = held.removeValue(forKey: id) {
                ignore(waiting.update.source, id, .appDeleted, "the app was deleted while this waited to show: ignored", now, &actions)
            }
            for key in stored.keys {
                guard let index = stored[key]?.waiting.firstIndex(of: id), let message = stored[key] else { continue }
                stored[key]?.waiting.remove(at: index)
                ignore(
                    message.update.source, id, .appDeleted, "the app was deleted while this waited for the device to come back online: ignored",
                    now, &actions)
            }
        }
        // What APNs kept for the offline device's tokens of the deleted install (an update
        // to one of its activities, a start to its push-to-start token) never reaches it.
        if !keptForOffline.isEmpty {
            for kept in keptForOffline.values.filter({ $0.device == device }).sorted(by: { $0.order < $1.order }) {
                keptForOffline[kept.push.token] = nil
                ignore(
                    kept.push.source, activityID(of: target(ofToken: kept.push.token, bundleID: kept.push.bundleID)), .appDeleted,
                    "the app was deleted while APNs kept this for the offline device: ignored", now, &actions)
            }
        }
        return actions
    }

    /// Forgets the activities dismissed before `cutoff`, as retention prunes their records: a
    /// push to one's token is then as to a token no activity has. Returns how many went.
    public mutating func forgetDismissed(before cutoff: DeviceInstant) -> Int {
        let gone = activities.values.filter { activity in
            if case .dismissed(let at, _) = activity.state { at < cutoff } else { false }
        }
        guard !gone.isEmpty else { return 0 }
        for activity in gone {
            activities[activity.id] = nil
            held[activity.id] = nil
            if case .token(let token) = activity.subscription, byToken[token] == activity.id { byToken[token] = nil }
            unsubscribe(activity)
        }
        let ids = Set(gone.map(\.id))
        for device in Set(gone.map(\.app.device)) {
            byDevice[device]?.removeAll { ids.contains($0) }
            if byDevice[device]?.isEmpty == true { byDevice[device] = nil }
        }
        return gone.count
    }

    /// Forgets every activity of the devices `forgetting` selects (see `forget(device:)`).
    public mutating func forget(where forgetting: (String) -> Bool) {
        let devices = Set(byDevice.keys.filter(forgetting)).union(frequentUpdates.map(\.device).filter(forgetting))
            .union(spent.keys.map(\.device).filter(forgetting)).union(offline.filter(forgetting))
            .union(keptForOffline.values.map(\.device).filter(forgetting))
        for device in devices { forget(device: device) }
    }

    /// Puts back an activity a previous run recorded, with its tokens, channel and timers
    /// (an update it held back, and the budget its app spent, are not kept across runs).
    public mutating func restore(_ activity: LiveActivity, now: DeviceInstant) {
        activities[activity.id] = activity
        byDevice[activity.app.device, default: []].append(activity.id)
        if case .token(let token) = activity.subscription { byToken[token] = activity.id }
        switch activity.state {
        case .active, .stale:
            if case .channel(let channel) = activity.subscription {
                subscribers[ChannelKey(bundleID: activity.app.bundleID, channel: channel), default: []].append(activity.id)
            }
            timers.insert(.expire(activity.id), at: settings.activeUntil(startedAt: activity.startedAt))
            if activity.state == .active, let staleDate = activity.staleDate { timers.insert(.stale(activity.id), at: staleDate) }
        case .ended(_, let dismissAt): timers.insert(.dismiss(activity.id), at: dismissAt)
        case .dismissed: break
        }
    }

    /// Puts back the message a Most Recent Message Stored channel kept when a previous run
    /// stopped (`broadcast.storedUntil`: until when it still keeps it), for activities that
    /// subscribe later and devices that come back online. A message the channel holds already
    /// (a cluster member's, newer) stays.
    public mutating func restoreMessage(_ broadcast: Broadcast, now: DeviceInstant) {
        guard stored[broadcast.channel] == nil, broadcast.payload.event != .start, let until = broadcast.storedUntil, until > now else { return }
        stored[broadcast.channel] = Stored(
            update: Pending(source: broadcast.source, priority: broadcast.priority, payload: broadcast.payload), receivedAt: broadcast.receivedAt,
            until: until, recordID: broadcast.recordID)
        timers.insert(.unstore(broadcast.channel), at: until)
    }

    /// Makes `broadcast`, its channel's latest as the store has it, what the channel keeps
    /// (nothing when `storedUntil` is nil or past): a cluster member that joins again takes
    /// what it missed while it was out. An older message held gives way to it (a newer one,
    /// received here after the store was read, stays): the offline activities that waited for
    /// that one wait for this one, or miss it when it is not kept.
    public mutating func takeMessage(_ broadcast: Broadcast, now: DeviceInstant) -> [LiveActivityAction] {
        var actions = advance(to: now)
        let previous = stored[broadcast.channel]
        guard previous.map({ $0.update.source != broadcast.source && $0.receivedAt <= broadcast.receivedAt }) ?? true,
            broadcast.payload.event != .start
        else { return actions }
        let waiting = previous?.waiting ?? []
        if let previous {
            for id in waiting { replacedOnChannel(previous.update.source, for: id, by: broadcast.source, now: now, into: &actions) }
        }
        guard let until = broadcast.storedUntil, until > now else {
            stored[broadcast.channel] = nil
            for id in waiting { missesUnkept(broadcast.source, id, now: now, into: &actions) }
            return actions
        }
        stored[broadcast.channel] = Stored(
            update: Pending(source: broadcast.source, priority: broadcast.priority, payload: broadcast.payload), receivedAt: broadcast.receivedAt,
            until: until, waiting: waiting, recordID: broadcast.recordID)
        timers.insert(.unstore(broadcast.channel), at: until)
        for id in waiting { waitsForKept(broadcast.source, id, until: until, now: now, into: &actions) }
        return actions
    }

    /// After a restart put back the activities, the offline devices and the channels' stored
    /// messages: each activity of an offline device that does not show its channel's stored
    /// message waits for it again, so that wait ends (delivered, replaced or let go).
    public mutating func resumeWaits() {
        for (key, message) in stored {
            let waiting = (subscribers[key] ?? []).filter { id in
                guard let activity = activities[id], offline.contains(activity.app.device) else { return false }
                return activity.timestamp.map { message.update.payload.timestamp > $0 } ?? true
            }
            stored[key]?.waiting = Array(Set(message.waiting).union(waiting)).sorted()
        }
    }

    /// Whether activity `activityID` waits for `source` now: an update it holds back, a
    /// channel's kept message for its offline device, or a push APNs keeps for its token.
    public func isWaiting(source: String, activityID: String) -> Bool {
        held[activityID]?.update.source == source
            || stored.values.contains { $0.update.source == source && $0.waiting.contains(activityID) }
            || keptForOffline.contains { $0.value.push.source == source && byToken[$0.key] == activityID }
    }

    /// Sets whether `app` has `NSSupportsLiveActivitiesFrequentUpdates`.
    public mutating func setFrequentUpdates(_ on: Bool, for app: LiveActivityApp) {
        if on { frequentUpdates.insert(app) } else { frequentUpdates.remove(app) }
    }

    /// Sets whether the app `bundleID` has `NSSupportsLiveActivitiesFrequentUpdates` on every device.
    public mutating func setFrequentUpdates(_ on: Bool, bundleID: String) {
        if on { frequentBundles.insert(bundleID) } else { frequentBundles.remove(bundleID) }
    }

    /// Starts an activity as the app does (`Activity.request`): subscribed to `channel`, or
    /// with update token `token`. Throws `unknownChannel` for a channel that does not exist.
    public mutating func start(
        id: String, app: LiveActivityApp, attributesType: String, attributes: String, contentState: String, subscription: LiveActivity.Subscription,
        channelExists: Bool = true, now: DeviceInstant
    ) throws(LiveActivityIgnored) -> [LiveActivityAction] {
        if case .channel = subscription, !channelExists { throw .unknownChannel }
        var actions = advance(to: now)
        let activity = LiveActivity(
            id: id, app: app, attributesType: attributesType, attributes: attributes, subscription: subscription, contentState: contentState,
            startedAt: now)
        begin(activity, why: "started by the app" + Self.subscriptionNote(subscription), now: now, into: &actions)
        return actions
    }

    /// A Live Activity push reaches the device: a start to a push-to-start token, or an
    /// update or end to an activity's token. Exactly one `.update` names `push.source` with
    /// no activity when none took it.
    public mutating func receive(_ push: Push, channelExists: (ChannelID) -> Bool, now: DeviceInstant) -> [LiveActivityAction] {
        var actions = advance(to: now)
        let target = target(ofToken: push.token, bundleID: push.bundleID)
        if !offline.isEmpty, let device = device(of: target), offline.contains(device) {
            keep(push, for: device, activityID: activityID(of: target), now: now, into: &actions)
            return actions
        }
        take(push, target: target, channelExists: channelExists, now: now, into: &actions)
        return actions
    }

    /// The device `target` is on: the app's for a push-to-start token, the activity's for an update token.
    private func device(of target: Target?) -> String? {
        switch target {
        case .pushToStart(let app): app.device
        case .activity(let id): activities[id]?.app.device
        case nil: nil
        }
    }

    private func activityID(of target: Target?) -> String? {
        if case .activity(let id) = target { id } else { nil }
    }

    /// APNs keeps `push` for its offline device until its `storedUntil`, in place of what it
    /// kept for the same token before.
    private mutating func keep(
        _ push: Push, for device: String, activityID: String?, now: DeviceInstant, into actions: inout [LiveActivityAction]
    ) {
        guard push.storedUntil > now else {
            return ignore(
                push.source, activityID, .offlineNotStored, "the device is offline and apns-expiration 0 lets APNs keep nothing", now, &actions)
        }
        if let previous = keptForOffline[push.token] {
            actions.append(
                .update(
                    LiveActivityUpdate(
                        source: previous.push.source, activityID: activityID, outcome: .coalesced(into: push.source),
                        why: "replaced at APNs by \(push.source) while the device was offline: APNs keeps the latest push to a token", at: now)))
        }
        keptCount &+= 1
        keptForOffline[push.token] = Kept(push: push, device: device, order: keptCount)
        timers.insert(.unkeep(push.token), at: push.storedUntil)
        actions.append(
            .update(
                LiveActivityUpdate(
                    source: push.source, activityID: activityID, outcome: .waiting(until: push.storedUntil),
                    why: "the device is offline: APNs keeps the latest push to this token until \(Self.time(push.storedUntil))", at: now)))
    }

    /// The broadcasts (their records' ids) the Most Recent Message Stored channels keep now,
    /// by channel: retention keeps those records (of the channels the app still has), which a
    /// restart reads them back from.
    package var keptMessageRecords: [ChannelKey: UInt64] {
        stored.compactMapValues(\.recordID)
    }

    /// Whether `source` is a push APNs keeps for an offline device.
    package func isKeptForOffline(_ source: String) -> Bool {
        !keptForOffline.isEmpty && keptForOffline.values.contains { $0.push.source == source }
    }

    /// Whether `source` is a push APNs keeps for activity `activityID`'s offline device (nil:
    /// a start kept for a push-to-start token): a provider may send one apns-id to two
    /// devices, one offline and one not.
    package func isKeptForOffline(_ source: String, activityID: String?) -> Bool {
        !keptForOffline.isEmpty && keptForOffline.contains { $0.value.push.source == source && byToken[$0.key] == activityID }
    }

    /// The push reaches the device now.
    private mutating func take(
        _ push: Push, target: Target?, channelExists: (ChannelID) -> Bool, now: DeviceInstant, into actions: inout [LiveActivityAction]
    ) {
        let payload = push.payload
        switch target {
        case nil:
            ignore(
                push.source, nil, .unknownToken, "no Live Activity or push-to-start token of this device is \(push.token.prefix(8))…", now, &actions)
        case .pushToStart(let app):
            guard payload.event == .start else {
                ignore(
                    push.source, nil, .notAStart, "an \(payload.event.rawValue) sent to the push-to-start token, which takes only start", now,
                    &actions)
                return
            }
            let subscription: LiveActivity.Subscription
            if let channel = payload.inputPushChannel {
                guard channelExists(channel) else {
                    ignore(
                        push.source, nil, .unknownChannel,
                        "input-push-channel \(channel) is not a channel of the app: the Live Activity fails to start", now, &actions)
                    return
                }
                subscription = .channel(channel)
            } else {
                subscription = payload.inputPushToken ? .token(push.newToken) : .none
            }
            let activity = LiveActivity(
                id: push.newActivityID, app: app, attributesType: payload.attributesType ?? "", attributes: payload.attributes ?? "{}",
                subscription: subscription, contentState: payload.contentState ?? "{}", staleDate: payload.staleDate,
                relevanceScore: payload.relevanceScore, timestamp: payload.timestamp, startedAt: now)
            begin(
                activity, source: push.source, why: "started by a push to the push-to-start token" + Self.subscriptionNote(subscription), now: now,
                into: &actions)
        case .activity(let id):
            deliver(Pending(source: push.source, priority: push.priority, payload: payload), to: id, now: now, into: &actions)
        }
    }

    /// A broadcast reaches every activity subscribed to its channel; a stored one is kept
    /// for activities that subscribe later and devices that come back online. At most
    /// `limit` subscribers are reached now; `continueBroadcast` reaches the rest, `limit` at
    /// a time, so an executor can commit each slice before the next (pushes are not held
    /// behind a large fan-out). The subscribers are those of the moment it arrived, but for
    /// `skipping` (activities a cluster's catch-up already brought it to).
    public mutating func broadcast(
        _ broadcast: Broadcast, now: DeviceInstant, limit: Int = .max, skipping: Set<String> = []
    ) -> [LiveActivityAction] {
        var actions = advance(to: now)
        if let ignored = Self.ignores(broadcast: broadcast.payload) {
            ignore(broadcast.source, nil, ignored, "a broadcast cannot start a Live Activity", now, &actions)
            return actions
        }
        let update = Pending(source: broadcast.source, priority: broadcast.priority, payload: broadcast.payload)
        // The message it replaces no longer waits for the offline devices: this one does, if kept.
        if let previous = stored[broadcast.channel] {
            for id in previous.waiting { replacedOnChannel(previous.update.source, for: id, by: broadcast.source, now: now, into: &actions) }
        }
        if let until = broadcast.storedUntil, until > now {
            stored[broadcast.channel] = Stored(update: update, receivedAt: broadcast.receivedAt, until: until, recordID: broadcast.recordID)
            timers.insert(.unstore(broadcast.channel), at: until)
        } else {
            stored[broadcast.channel] = nil
        }
        let listening = subscribers[broadcast.channel] ?? []
        let fanOut = FanOut(
            channel: broadcast.channel, update: update, storedUntil: broadcast.storedUntil,
            subscribers: skipping.isEmpty ? listening : listening.filter { !skipping.contains($0) }, next: 0)
        reach(fanOut, limit: limit, now: now, into: &actions)
        return actions
    }

    /// Why every device ignores a broadcast of `payload`, whatever its channel's activities;
    /// nil when each activity decides ("You can't use broadcast push notifications to start a
    /// Live Activity").
    public static func ignores(broadcast payload: LiveActivityPayload) -> LiveActivityIgnored? {
        payload.event == .start ? .broadcastStart : nil
    }

    /// Reaches the next `limit` subscribers of broadcast `source`; nothing when it reached them all.
    public mutating func continueBroadcast(_ source: String, now: DeviceInstant, limit: Int = .max) -> [LiveActivityAction] {
        var actions = advance(to: now)
        guard let fanOut = fanOuts.removeValue(forKey: source) else { return actions }
        reach(fanOut, limit: limit, now: now, into: &actions)
        return actions
    }

    /// Broadcast `broadcast`, received while no receiver of a cluster held activity `id`'s
    /// device (its shard was changing owner), reaches the activity now that its device is put
    /// back: as the fan-out would have reached it, and its decision says so. `newer`: a later
    /// broadcast on the channel that already reached the activity (its fan-out came first), so
    /// this one gives way to it, as an update replaced while it waited. Nothing when the
    /// activity no longer listens on the channel, or for a start.
    public mutating func catchUp(
        _ broadcast: Broadcast, activityID id: String, after newer: String? = nil, now: DeviceInstant
    ) -> [LiveActivityAction] {
        var actions = advance(to: now)
        guard broadcast.payload.event != .start, subscribers[broadcast.channel]?.contains(id) == true else { return actions }
        let arrived = "the broadcast arrived at \(Self.time(broadcast.receivedAt)), while no receiver of the cluster held this device"
        if let newer {
            actions.append(
                .update(
                    LiveActivityUpdate(
                        source: broadcast.source, activityID: id, outcome: .coalesced(into: newer),
                        why: "the later broadcast \(newer) on the channel reached it first: only the latest content-state shows (\(arrived))", at: now
                    )))
            return actions
        }
        let note = " (\(arrived): it reaches it as the device is put back)"
        let first = actions.count
        let update = Pending(source: broadcast.source, priority: broadcast.priority, payload: broadcast.payload)
        reach(
            FanOut(channel: broadcast.channel, update: update, storedUntil: broadcast.storedUntil, subscribers: [id], next: 0), limit: 1,
            now: now, into: &actions)
        for index in actions.indices[first...] {
            guard case .update(var decision) = actions[index], decision.source == broadcast.source, decision.activityID == id else { continue }
            decision.why += note
            actions[index] = .update(decision)
        }
        return actions
    }

    /// Whether broadcast `source` has subscribers still to reach.
    public func isFanningOut(_ source: String) -> Bool { fanOuts[source] != nil }

    /// Stops broadcast `source`'s fan-out where it is: a slice could not be recorded, so the
    /// provider is told to send it again, and the subscribers left get it then.
    public mutating func abandonBroadcast(_ source: String) {
        fanOuts[source] = nil
    }

    private mutating func reach(_ fanOut: FanOut, limit: Int, now: DeviceInstant, into actions: inout [LiveActivityAction]) {
        var fanOut = fanOut
        let end = fanOut.next + min(max(limit, 1), fanOut.subscribers.count - fanOut.next)
        for id in fanOut.subscribers[fanOut.next..<end] {
            // Most fan-outs find no device offline: no lookup for them.
            // One that ended meanwhile (or was deleted) is judged at once: it waits for nothing.
            if !offline.isEmpty, let activity = activities[id], !activity.state.isOver, offline.contains(activity.app.device) {
                if let until = fanOut.storedUntil, until > now {
                    // A later broadcast replaced this one on the channel while it fanned out:
                    // the device gets that one when it is back, or none.
                    guard let current = stored[fanOut.channel], current.update.source == fanOut.update.source else {
                        if let current = stored[fanOut.channel] {
                            replacedOnChannel(fanOut.update.source, for: id, by: current.update.source, now: now, into: &actions)
                        } else {
                            missesUnkept(fanOut.update.source, id, now: now, into: &actions)
                        }
                        continue
                    }
                    // A restart or an adoption may have put it there already (`resumeWaits`).
                    if !current.waiting.contains(id) { stored[fanOut.channel]?.waiting.append(id) }
                    waitsForKept(fanOut.update.source, id, until: until, now: now, into: &actions)
                } else {
                    ignore(fanOut.update.source, id, .offlineNotStored, "the device is offline and the channel stores no message", now, &actions)
                }
                continue
            }
            deliver(fanOut.update, to: id, now: now, into: &actions)
        }
        fanOut.next = end
        if end < fanOut.subscribers.count { fanOuts[fanOut.update.source] = fanOut }
    }

    /// The device goes offline: pushes and broadcasts to it wait (or are lost).
    public mutating func setOffline(device: String, now: DeviceInstant) -> [LiveActivityAction] {
        let actions = advance(to: now)
        offline.insert(device)
        return actions
    }

    /// The channels the starts APNs keeps for offline `device` subscribe to: what a caller
    /// looks up for `setOnline`'s `channelExists`.
    public func keptStartChannels(device: String) -> [ChannelKey] {
        keptForOffline.values.compactMap { kept in
            guard kept.device == device, kept.push.payload.event == .start, let channel = kept.push.payload.inputPushChannel else { return nil }
            return ChannelKey(bundleID: kept.push.bundleID, channel: channel)
        }
    }

    /// What a caller looks up for `setOnline(device:channelExists:now:)`: the channels of the
    /// starts APNs keeps for offline `device`, and of its channel activities whose channel
    /// keeps a message (one deleted since gives nothing).
    package func channelsToLookUp(device: String) -> [ChannelKey] {
        var keys = keptStartChannels(device: device)
        for id in byDevice[device] ?? [] {
            guard let activity = activities[id], case .channel(let channel) = activity.subscription else { continue }
            let key = ChannelKey(bundleID: activity.app.bundleID, channel: channel)
            if stored[key] != nil, !keys.contains(key) { keys.append(key) }
        }
        return keys
    }

    /// The device comes back online: what APNs kept for its tokens arrives (a start subscribes
    /// to its `input-push-channel` if `channelExists` says the app has it now), then each of
    /// its channel activities gets its channel's stored message, if newer than what it shows
    /// and if `channelExists` says the app still has the channel.
    public mutating func setOnline(device: String, channelExists: (ChannelKey) -> Bool, now: DeviceInstant) -> [LiveActivityAction] {
        var actions = advance(to: now)
        guard offline.remove(device) != nil else { return actions }
        // What APNs kept for the device's tokens arrives first, in the order it was sent.
        if !keptForOffline.isEmpty {
            for kept in keptForOffline.values.filter({ $0.device == device }).sorted(by: { $0.order < $1.order }) {
                keptForOffline[kept.push.token] = nil
                take(
                    kept.push, target: target(ofToken: kept.push.token, bundleID: kept.push.bundleID),
                    channelExists: { channelExists(ChannelKey(bundleID: kept.push.bundleID, channel: $0)) }, now: now, into: &actions)
            }
        }
        for id in byDevice[device] ?? [] {
            guard let activity = activities[id], case .channel(let channel) = activity.subscription else { continue }
            let key = ChannelKey(bundleID: activity.app.bundleID, channel: channel)
            guard let message = stored[key], message.until > now else { continue }
            let exists = channelExists(key)
            // One that waited for this message gets it now, judged as any update (it may have
            // ended meanwhile), unless the app deleted the channel meanwhile.
            if let index = message.waiting.firstIndex(of: id) {
                stored[key]?.waiting.remove(at: index)
                if exists {
                    deliver(message.update, to: id, now: now, into: &actions)
                } else {
                    ignore(
                        message.update.source, id, .unknownChannel,
                        "the app deleted its channel while this waited for the device to come back online: ignored", now, &actions)
                }
                continue
            }
            guard exists, !activity.state.isOver, activity.timestamp.map({ message.update.payload.timestamp > $0 }) ?? true else { continue }
            deliver(message.update, to: activity.id, now: now, into: &actions)
        }
        return actions
    }

    /// Fires every timer due at or before `now`, each at its own instant.
    public mutating func advance(to now: DeviceInstant) -> [LiveActivityAction] {
        var actions: [LiveActivityAction] = []
        while let (at, timer) = timers.popDue(now) {
            fire(timer, at: at, into: &actions)
        }
        return actions
    }

    // MARK: - Decisions

    private mutating func begin(
        _ activity: LiveActivity, source: String? = nil, why: String, now: DeviceInstant, into actions: inout [LiveActivityAction]
    ) {
        var activity = activity
        activity.why = why
        if let staleDate = activity.staleDate, staleDate <= now {
            activity.state = .stale
            activity.why += Self.staleAtOnce(staleDate)
        }
        activities[activity.id] = activity
        byDevice[activity.app.device, default: []].append(activity.id)
        switch activity.subscription {
        case .token(let token): byToken[token] = activity.id
        case .channel(let channel): subscribers[ChannelKey(bundleID: activity.app.bundleID, channel: channel), default: []].append(activity.id)
        case .none: break
        }
        timers.insert(.expire(activity.id), at: settings.activeUntil(startedAt: now))
        if let staleDate = activity.staleDate, staleDate > now { timers.insert(.stale(activity.id), at: staleDate) }
        actions.append(.record(activity))
        if let source { actions.append(.update(LiveActivityUpdate(source: source, activityID: activity.id, outcome: .applied, why: why, at: now))) }
        // A channel that keeps its latest message gives it to an activity that subscribes later,
        // judged as any update (one older than the start is ignored, and says so).
        if case .channel(let channel) = activity.subscription, let message = stored[ChannelKey(bundleID: activity.app.bundleID, channel: channel)],
            message.until > now
        {
            let first = actions.count
            deliver(message.update, to: activity.id, now: now, into: &actions)
            let note =
                " (the channel's kept message, received at \(Self.time(message.receivedAt)): it reaches an activity that subscribes later)"
            for index in actions.indices[first...] {
                guard case .update(var decision) = actions[index], decision.source == message.update.source, decision.activityID == activity.id
                else { continue }
                decision.why += note
                actions[index] = .update(decision)
            }
        }
    }

    /// Decides what `update` does to activity `id`: ignored, applied, or held. A `released`
    /// update has waited for its opportunity (or for budget, which it checks again).
    private mutating func deliver(
        _ update: Pending, to id: String, released: Bool = false, now: DeviceInstant, into actions: inout [LiveActivityAction]
    ) {
        guard let activity = activities[id] else { return }
        let payload = update.payload
        if activity.state.isOver {
            return ignore(
                update.source, id, .activityEnded, "the activity ended (\(activity.state.name)): pushes after the end are ignored", now, &actions)
        }
        if payload.event == .start {
            return ignore(
                update.source, id, .startToUpdateToken, "a start sent to an update token: starts go to the push-to-start token", now, &actions)
        }
        if let last = activity.timestamp, payload.timestamp < last {
            return ignore(
                update.source, id, .olderTimestamp,
                "timestamp \(Self.seconds(payload.timestamp)) is older than the last applied, \(Self.seconds(last)): ignored", now, &actions)
        }
        // An update waiting to show is as good as applied: an older one that arrives later
        // (APNs may reorder a channel's messages) cannot replace it.
        if !released, let waiting = held[id], payload.timestamp < waiting.update.payload.timestamp {
            return ignore(
                update.source, id, .olderTimestamp,
                "timestamp \(Self.seconds(payload.timestamp)) is older than that of \(waiting.update.source), which waits to show: ignored", now,
                &actions)
        }
        if payload.event == .end {
            // *Assumed*: an end is not held for the budget.
            return apply(update, to: id, why: "end", now: now, into: &actions)
        }
        switch update.priority {
        case .high:
            guard let budget = settings.budget(frequentUpdates: hasFrequentUpdates(activity.app)) else {
                return apply(update, to: id, why: "priority 10, no budget (throttling off)", now: now, into: &actions)
            }
            var times = spent[activity.app, default: []]
            times.removeAll { $0.advanced(by: Self.hour) <= now }
            spent[activity.app] = times
            if times.count < budget {
                spent[activity.app, default: []].append(now)
                return apply(
                    update, to: id, why: "priority 10, within the hourly budget (\(times.count + 1) of \(budget) this hour)", now: now, into: &actions
                )
            }
            // A budget of 0 admits none: the update waits for good.
            let due = budget > 0 ? times[times.count - budget].advanced(by: Self.hour) : .distantFuture
            let frequent = hasFrequentUpdates(activity.app) ? " (frequent updates)" : ""
            hold(
                update, for: id, due: due,
                why: budget > 0
                    ? "over the hourly budget of \(budget) priority-10 updates\(frequent): waits until \(Self.time(due)), and only the latest content-state shows"
                    : "an hourly budget of 0 priority-10 updates\(frequent) shows none: held until a later update replaces it",
                now: now, into: &actions)
        case .normal, .low:
            if released {
                return apply(update, to: id, why: "priority \(update.priority.rawValue), shown at its opportunity", now: now, into: &actions)
            }
            guard settings.opportunisticDelay > .zero else {
                return apply(
                    update, to: id, why: "priority \(update.priority.rawValue), opportunistic, applied at once (no delay set)", now: now,
                    into: &actions)
            }
            let due = min(held[id]?.due ?? .distantFuture, now.advanced(by: settings.opportunisticDelay))
            hold(
                update, for: id, due: due,
                why:
                    "priority \(update.priority.rawValue) is opportunistic and spends no budget: shown at the next opportunity, by \(Self.time(due))",
                now: now,
                into: &actions)
        }
    }

    private mutating func hold(
        _ update: Pending, for id: String, due: DeviceInstant, why: String, now: DeviceInstant, into actions: inout [LiveActivityAction]
    ) {
        coalesceHeld(of: id, into: update.source, now: now, into: &actions)
        held[id] = Held(update: update, due: due)
        timers.insert(.release(id), at: due)
        actions.append(.update(LiveActivityUpdate(source: update.source, activityID: id, outcome: .waiting(until: due), why: why, at: now)))
    }

    /// Broadcast `source`, which waited for activity `id`'s offline device, gives way to the
    /// channel's newer message `newer`.
    private func replacedOnChannel(
        _ source: String, for id: String, by newer: String, now: DeviceInstant, into actions: inout [LiveActivityAction]
    ) {
        actions.append(
            .update(
                LiveActivityUpdate(
                    source: source, activityID: id, outcome: .coalesced(into: newer),
                    why: "replaced on the channel by \(newer) while the device was offline: the channel keeps its latest message", at: now)))
    }

    /// Activity `id`, whose device is offline, waits for broadcast `source`, which its channel
    /// keeps until `until`.
    private func waitsForKept(_ source: String, _ id: String, until: DeviceInstant, now: DeviceInstant, into actions: inout [LiveActivityAction]) {
        actions.append(
            .update(
                LiveActivityUpdate(
                    source: source, activityID: id, outcome: .waiting(until: until),
                    why: "the device is offline: the channel keeps its latest message until \(Self.time(until))", at: now)))
    }

    /// Activity `id`, whose device is offline, misses broadcast `source`: its channel keeps it no more.
    private mutating func missesUnkept(_ source: String, _ id: String, now: DeviceInstant, into actions: inout [LiveActivityAction]) {
        ignore(source, id, .offlineNotStored, "the device is offline and the channel keeps this message no more", now, &actions)
    }

    /// The update `id` holds, if any, gives way to `source`.
    private mutating func coalesceHeld(of id: String, into source: String, now: DeviceInstant, into actions: inout [LiveActivityAction]) {
        guard let previous = held.removeValue(forKey: id) else { return }
        actions.append(
            .update(
                LiveActivityUpdate(
                    source: previous.update.source, activityID: id, outcome: .coalesced(into: source),
                    why: "replaced by \(source) while it waited: only the latest content-state shows", at: now)))
    }

    private mutating func apply(_ update: Pending, to id: String, why: String, now: DeviceInstant, into actions: inout [LiveActivityAction]) {
        guard var activity = activities[id] else { return }
        let payload = update.payload
        // An end without content-state that replaces an update still waiting to show ends
        // with that update's content: the latest the provider sent, which would have shown.
        let replaced = payload.event == .end && payload.contentState == nil ? held[id]?.update : nil
        coalesceHeld(of: id, into: update.source, now: now, into: &actions)
        if let content = payload.contentState {
            activity.contentState = content
            // The push's content replaces the activity's whole (ActivityContent): no
            // relevance-score, none. (An end without content-state keeps what it shows.)
            activity.relevanceScore = payload.relevanceScore
        } else if let replaced, let content = replaced.payload.contentState {
            activity.contentState = content
            activity.relevanceScore = payload.relevanceScore ?? replaced.payload.relevanceScore
        }
        // The push's stale-date replaces the one before: none given, none.
        activity.staleDate = payload.staleDate
        activity.timestamp = payload.timestamp
        var note = why
        if payload.event == .end {
            let latest = now.advanced(by: settings.dismissalWindow)
            let dismissAt = min(payload.dismissalDate ?? latest, latest)
            if dismissAt <= now {
                activity.state = .dismissed(at: now, endedAt: now)
                note = "ended and dismissed at once (a dismissal-date in the past)"
            } else {
                activity.state = .ended(at: now, dismissAt: dismissAt)
                timers.insert(.dismiss(id), at: dismissAt)
                note =
                    payload.dismissalDate == nil || dismissAt == latest
                    ? "ended; on the Lock Screen until \(Self.time(dismissAt)) (at most \(Self.span(settings.dismissalWindow)))"
                    : "ended; on the Lock Screen until its dismissal-date \(Self.time(dismissAt))"
            }
            if let replaced, replaced.payload.contentState != nil, payload.contentState == nil {
                note += "; it shows the content-state of \(replaced.source), which waited to show and rode the end"
            }
            unsubscribe(activity)
        } else if let staleDate = activity.staleDate, staleDate <= now {
            activity.state = .stale
            note += Self.staleAtOnce(staleDate)
        } else {
            activity.state = .active
            if let staleDate = payload.staleDate { timers.insert(.stale(id), at: staleDate) }
        }
        activity.why = note
        activities[id] = activity
        actions.append(.record(activity))
        actions.append(.update(LiveActivityUpdate(source: update.source, activityID: id, outcome: .applied, why: note, at: now)))
    }

    private mutating func ignore(
        _ source: String, _ id: String?, _ reason: LiveActivityIgnored, _ why: String, _ now: DeviceInstant, _ actions: inout [LiveActivityAction]
    ) {
        actions.append(.update(LiveActivityUpdate(source: source, activityID: id, outcome: .ignored(reason), why: why, at: now)))
    }

    private mutating func unsubscribe(_ activity: LiveActivity) {
        guard case .channel(let channel) = activity.subscription else { return }
        let key = ChannelKey(bundleID: activity.app.bundleID, channel: channel)
        subscribers[key]?.removeAll { $0 == activity.id }
        if subscribers[key]?.isEmpty == true { subscribers[key] = nil }
    }

    private mutating func fire(_ timer: Timer, at: DeviceInstant, into actions: inout [LiveActivityAction]) {
        switch timer {
        case .release(let id):
            guard let waiting = held[id], waiting.due == at else { return }
            held[id] = nil
            deliver(waiting.update, to: id, released: true, now: at, into: &actions)
        case .stale(let id):
            guard var activity = activities[id], activity.state == .active, let staleDate = activity.staleDate, staleDate <= at else { return }
            activity.state = .stale
            activity.why = "stale at its stale-date \(Self.time(staleDate))"
            activities[id] = activity
            actions.append(.record(activity))
        case .dismiss(let id):
            guard var activity = activities[id], case .ended(let endedAt, let dismissAt) = activity.state, dismissAt <= at else { return }
            activity.state = .dismissed(at: at, endedAt: endedAt)
            activity.why = "dismissed from the Lock Screen at \(Self.time(at))"
            activities[id] = activity
            actions.append(.record(activity))
        case .unkeep(let token):
            guard let kept = keptForOffline[token], kept.push.storedUntil <= at else { return }
            keptForOffline[token] = nil
            ignore(
                kept.push.source, activityID(of: target(ofToken: token, bundleID: kept.push.bundleID)), .offlineExpired,
                "APNs kept it for the offline device until \(Self.time(kept.push.storedUntil)), and the device did not come back by then", at,
                &actions)
        case .unstore(let key):
            guard let message = stored[key], message.until <= at else { return }
            stored[key] = nil
            for id in message.waiting {
                ignore(
                    message.update.source, id, .offlineExpired,
                    "the channel kept it until \(Self.time(message.until)), and the device did not come back by then", at, &actions)
            }
        case .expire(let id):
            guard var activity = activities[id], !activity.state.isOver, settings.activeUntil(startedAt: activity.startedAt) <= at else { return }
            let dismissAt = at.advanced(by: settings.dismissalWindow)
            activity.state = .ended(at: at, dismissAt: dismissAt)
            activity.why = "ended by the system: a Live Activity is active for at most \(Self.span(settings.maximumActive))"
            activities[id] = activity
            unsubscribe(activity)
            timers.insert(.dismiss(id), at: dismissAt)
            actions.append(.record(activity))
            // What it held back ends with it, saying so (its push is not left pending).
            if let waiting = held.removeValue(forKey: id) {
                ignore(
                    waiting.update.source, id, .activityEnded,
                    "the activity ended (\(Self.span(settings.maximumActive)) active) while this waited to show: ignored", at, &actions)
            }
        }
    }

    /// What an activity's why adds when its stale-date has passed as it starts or updates.
    static func staleAtOnce(_ staleDate: DeviceInstant) -> String { "; stale at once (its stale-date \(time(staleDate)) has passed)" }

    /// A span of the settings as a `why` says it: in hours when whole ("8 hours"), else as
    /// a wait reason says a span.
    static func span(_ duration: Duration) -> String {
        let seconds = duration.components.seconds
        guard seconds >= 3600, seconds % 3600 == 0, duration.components.attoseconds == 0 else { return WaitReason<DeviceInstant>.words(duration) }
        return seconds == 3600 ? "1 hour" : "\(seconds / 3600) hours"
    }

    /// An instant as the why texts write it: ISO 8601, UTC.
    static func time(_ instant: DeviceInstant) -> String { ISO8601Timestamp.string(millisecondsSinceEpoch: instant.millisecondsSinceEpoch) }

    /// A payload's `timestamp` as it was sent: seconds since 1970.
    static func seconds(_ instant: DeviceInstant) -> Int64 { instant.nanosecondsSinceEpoch / 1_000_000_000 }

    private static func subscriptionNote(_ subscription: LiveActivity.Subscription) -> String {
        switch subscription {
        case .token: ", with an update token"
        case .channel(let channel): ", subscribed to channel \(channel)"
        case .none: ", with no update token (no input-push-token: 1)"
        }
    }
}
