import SilentPushCore
import SilentPushStore

/// Live Activities: pushes to their tokens, broadcasts, starts by the app, and the records
/// and fates the activity policy's decisions become.
extension DeviceRecorder {
    /// A Live Activity push APNs accepted, its payload read: the activity policy decides, and
    /// the push's row takes the fate of its update (delivered when shown or started, pending
    /// while held, coalesced, or dropped saying why). `inputChannelExists`: whether a start's
    /// `input-push-channel` is a channel of the app (looked up before the step).
    package mutating func receiveLiveActivity(
        _ row: consuming PushRecord, push: LiveActivityPolicy.Push, inputChannelExists: Bool, now: DeviceInstant,
        completion: @escaping PushStore.Completion
    ) -> Actions {
        guard case .running = lifecycle else { return Self.replying() }
        guard owns(row.deviceToken) else { return Self.replying(.notOwner) }
        // An activity's update token was issued to its app: APNs refuses it under another
        // app's topic, as it does a device token.
        if let owner = activities.app(ofUpdateToken: row.deviceToken), owner.bundleID != push.bundleID {
            return refusingToken(row, cause: "the token is the update token of a Live Activity of \(owner.bundleID)", now: now)
        }
        var actions = Actions(completion: completion)
        actions.changes.append(.probe(at: 0))  // the push's row, once its fate is known
        var arriving: PushRecord? = consume row
        apply(policy.advance(to: now), to: &actions)
        record(activities.receive(push, channelExists: { _ in inputChannelExists }, now: now), into: &actions, arriving: &arriving)
        if let row = arriving.take() { actions.changes[0] = .insertPush(row) }
        return finish(actions)
    }

    /// A push of another type than `liveactivity` to a token a Live Activity's pushes go to
    /// (an activity's update token, or the topic's app's push-to-start token), issued for
    /// those alone: APNs refuses it (`DeviceTokenNotForTopic`), as its row and reply. nil when
    /// the token is not one (no lookup while no activity has an update token: most pushes).
    /// A `liveactivity` push ActivityKit cannot read comes this way too: it is its token's.
    mutating func refusingLiveActivityToken(_ row: borrowing PushRecord, now: DeviceInstant) -> Actions? {
        guard row.pushType != APNsPushType.liveactivity.rawValue else { return nil }
        if let owner = activities.app(ofUpdateToken: row.deviceToken) {
            return refusingToken(row, cause: "the token is the update token of a Live Activity of \(owner.bundleID)", now: now)
        }
        guard let bundleID = LiveActivityApp.pushToStartApp(ofToken: row.deviceToken, topic: row.topic, in: shards?.map) else { return nil }
        return refusingToken(row, cause: "the token is the push-to-start token of \(bundleID)'s Live Activities", now: now)
    }

    /// A push to a token issued for another topic, refused (`DeviceTokenNotForTopic`) for
    /// `cause`: its row, and the reply.
    private mutating func refusingToken(_ row: borrowing PushRecord, cause: String, now: DeviceInstant) -> Actions {
        var actions = Actions()
        actions.changes.append(
            .insertPush(
                .refused(
                    id: row.id, apnsID: row.apnsID, deviceToken: row.deviceToken, topic: row.topic,
                    fate: .rejected(.deviceTokenNotForTopic, cause: cause), now: now)))
        actions.reply = .rejected(.deviceTokenNotForTopic)
        return finish(actions)
    }

    /// Subscribers a broadcast reaches per commit: its fan-out is committed a slice at a
    /// time, so a push arriving meanwhile waits for one slice at most, not for them all.
    package static let fanOutSlice = 500

    /// Where a broadcast comes from.
    package enum BroadcastOrigin: Sendable, Equatable {
        /// A provider sent it here: its row is recorded with the first slice.
        case provider
        /// Another member of the cluster accepted and recorded it; this one fans it out to
        /// its own devices' activities.
        case member
    }

    /// A broadcast APNs accepted: its row (from a provider), and what it did to the first
    /// slice of the activities on its channel, in one commit. Replies `fanningOut` while
    /// subscribers are left for `continueBroadcast`. `payload` is nil when ActivityKit cannot
    /// read it (nothing changes).
    package mutating func broadcast(
        _ broadcast: BroadcastRecord, from origin: BroadcastOrigin = .provider, payload: LiveActivityPayload?, storedUntil: DeviceInstant?,
        now: DeviceInstant, completion: @escaping PushStore.Completion
    ) -> Actions {
        guard case .running = lifecycle else { return Self.replying() }
        var actions = Actions(completion: completion)
        if origin == .provider { actions.changes.append(.insertBroadcast(broadcast)) }
        var skipping: Set<String> = []
        switch broadcastCatchUp {
        case .idle: break
        case .reading(let shards, var arrived):
            // Only one whose fan-out reaches activities: the catch-up skips it for, or yields
            // older ones to it in, the shards catching up now (not one adopted later).
            if let payload, LiveActivityPolicy.ignores(broadcast: payload) == nil {
                arrived.append(
                    Arrival(
                        source: broadcast.requestID,
                        channel: LiveActivityPolicy.ChannelKey(bundleID: broadcast.bundleID, channel: broadcast.channelID),
                        receivedAt: broadcast.receivedAt, shards: shards))
                broadcastCatchUp = .reading(shards: shards, arrived: arrived)
            }
        case .delivered: skipping = caughtUp(broadcast.requestID)
        }
        if let payload {
            let message = LiveActivityPolicy.Broadcast(broadcast, payload: payload, storedUntil: storedUntil)
            record(activities.broadcast(message, now: now, limit: Self.fanOutSlice, skipping: skipping), into: &actions)
            if activities.isFanningOut(broadcast.requestID) { actions.reply = .fanningOut }
        }
        return finish(actions)
    }

    /// The next slice of broadcast `source`'s fan-out, committed as one; replies
    /// `fanningOut` while more is left. Runs while stopping too: the broadcast was accepted.
    package mutating func continueBroadcast(_ source: String, now: DeviceInstant, completion: @escaping PushStore.Completion) -> Actions {
        var actions = Actions(completion: completion)
        record(activities.continueBroadcast(source, now: now, limit: Self.fanOutSlice), into: &actions)
        if activities.isFanningOut(source) { actions.reply = .fanningOut }
        return finish(actions)
    }

    /// Retention pruned the activities dismissed before `cutoff`: the device forgets them too.
    package mutating func forgetDismissedActivities(before cutoff: DeviceInstant) -> Actions {
        _ = activities.forgetDismissed(before: cutoff)
        return Actions()
    }

    /// A slice of broadcast `source` could not be committed: its fan-out stops there (the
    /// provider is answered 503 and sends it again).
    package mutating func abandonBroadcast(_ source: String) -> Actions {
        activities.abandonBroadcast(source)
        return finish(Actions())
    }

    /// The app starts an activity (`Activity.request`). Replies `activityRefused` when it
    /// cannot (a channel that does not exist); `completion` runs once it is recorded.
    package mutating func startActivity(
        id: String, app: LiveActivityApp, attributesType: String, attributes: String, contentState: String,
        subscription: LiveActivity.Subscription, channelExists: Bool, now: DeviceInstant, completion: @escaping PushStore.Completion
    ) -> Actions {
        guard case .running = lifecycle else { return Self.replying(completion: completion) }
        do throws(LiveActivityIgnored) {
            var actions = Actions(completion: completion)
            let started = try activities.start(
                id: id, app: app, attributesType: attributesType, attributes: attributes, contentState: contentState,
                subscription: subscription, channelExists: channelExists, now: now)
            record(started, into: &actions)
            return finish(actions)
        } catch {
            return Self.replying(.activityRefused(error), completion: completion)
        }
    }

    /// Sets whether `app` has `NSSupportsLiveActivitiesFrequentUpdates` (a larger hourly budget).
    package mutating func setFrequentUpdates(_ on: Bool, for app: LiveActivityApp) -> Actions {
        activities.setFrequentUpdates(on, for: app)
        return finish(Actions())
    }

    mutating func record(_ liveActions: [LiveActivityAction], into actions: inout Actions) {
        var none: PushRecord?
        record(liveActions, into: &actions, arriving: &none)
    }

    /// Turns the activity policy's actions into store changes; a push's update sets its fate
    /// (in `arriving`'s row when it is the push in hand).
    mutating func record(_ liveActions: [LiveActivityAction], into actions: inout Actions, arriving: inout PushRecord?) {
        for action in liveActions {
            switch action {
            case .record(let activity):
                actions.changes.append(.recordActivity(activity))
                know(activity.app.device, topic: activity.app.bundleID, bundleID: activity.app.bundleID, into: &actions)
            case .update(let update):
                actions.changes.append(.insertActivityUpdate(update))
                let exact = HeldActivityPush(source: update.source, activityID: update.activityID)
                let key = heldKey(for: update, exact: exact)
                let held = heldActivityPushes.isEmpty ? nil : heldActivityPushes[key]
                // The arriving push's own decision, unless it is the coalescing of a push held
                // before it with the same apns-id (an arriving push is never coalesced at once).
                let replacesHeld: Bool =
                    if case .coalesced = update.outcome, let held, held.id != arriving?.id { true } else { false }
                if let push = arriving, push.apnsID == update.source, !replacesHeld {
                    let app =
                        update.activityID.flatMap { activities.activities[$0]?.app }
                        ?? LiveActivityApp(device: push.deviceToken, bundleID: LiveActivityApp.bundleID(ofTopic: push.topic))
                    let priority = APNsPriority(rawValue: push.priority) ?? .high
                    arriving?.fate = fate(of: update, priority: priority, app: app, atAPNs: false, &actions)
                    if case .waiting = update.outcome {
                        heldActivityPushes[exact] = (
                            push.id, priority, app, activities.isKeptForOffline(update.source, activityID: update.activityID)
                        )
                    }
                } else if let held {
                    let fate = fate(of: update, priority: held.priority, app: held.app, atAPNs: held.atAPNs, &actions)
                    actions.changes.append(.setFate(push: held.id, fate: fate, generation: nil))
                    if fate.coalescedByAPNs { actions.changes.append(.setCoalescedByAPNs(push: held.id)) }
                    if case .waiting = update.outcome {
                        heldActivityPushes[key]?.atAPNs = activities.isKeptForOffline(update.source, activityID: update.activityID)
                    } else {
                        heldActivityPushes[key] = nil
                    }
                }
            }
        }
    }

    /// Where the push `update` decides is held: under its source and activity; a start kept
    /// for an offline device was held with no activity yet, and a decision with none (the
    /// activity gone) takes the one push held with its source.
    private func heldKey(for update: LiveActivityUpdate, exact: HeldActivityPush) -> HeldActivityPush {
        guard !heldActivityPushes.isEmpty, heldActivityPushes[exact] == nil else { return exact }
        if update.activityID != nil {
            let start = HeldActivityPush(source: update.source, activityID: nil)
            return heldActivityPushes[start] != nil ? start : exact
        }
        return heldActivityPushes.keys.first { $0.source == update.source } ?? exact
    }

    /// The fate `update` gives its push; `atAPNs`: the push was kept at APNs for the offline
    /// device, so a replacement happened there.
    private func fate(
        of update: LiveActivityUpdate, priority: APNsPriority, app: LiveActivityApp, atAPNs: Bool, _ actions: inout Actions
    ) -> PushFate {
        // Counted as the stats count them: once, when the push's fate is final.
        switch update.outcome {
        case .applied:
            actions.metrics.delivered += 1
            return .delivered
        case .waiting where activities.isKeptForOffline(update.source, activityID: update.activityID):
            return .pending(.offline)
        case .waiting(let until):
            if priority == .high { return .pending(.activityBudget(budget: activities.budget(of: app) ?? 0, until: update.outcome.showsAt)) }
            return .pending(.opportunistic(until: until))
        case .coalesced:
            actions.metrics.coalesced += 1
            return .coalesced(into: nil, byAPNs: atAPNs)
        case .ignored(.offlineExpired):
            actions.metrics.expired += 1
            return .expired
        case .ignored(let reason):
            actions.metrics.dropped(.liveActivity(reason))
            return .dropped(.liveActivity(reason))
        }
    }
}
