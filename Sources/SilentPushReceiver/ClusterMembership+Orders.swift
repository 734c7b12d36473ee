import Foundation
import SilentPushCore
import SilentPushStore

/// What applies to the whole cluster before the call that asks for it answers: the manual
/// clock (one clock, stored), reset and the fault rules (stored in the cluster's table). The
/// member asked does it, orders every other live member to (`ClusterBus`), and answers once
/// they all have.
extension ClusterMembership {
    /// Moves every member's manual clock forward by `span`, to the same time: one member at a
    /// time (the store's clock lock; another gets `busy`). Each member fires its own
    /// devices' timers on the way, as a lone receiver does. Returns the new time.
    func advance(by span: Duration) async throws -> DeviceInstant {
        guard device.clock.mode == .manual else { throw DeviceClockError.notManual }
        guard !advancing.exchange(true, ordering: .acquiring) else { throw DeviceClockError.busy }
        defer { advancing.store(false, ordering: .releasing) }
        guard try await store.tryLockClusterClock(timeout: configuration.lease) else { throw DeviceClockError.busy }
        do {
            let target = device.clock.target(after: span)
            guard target < .distantFuture else { throw DeviceClockError.outOfRange }
            // A shard a dead receiver held has no owner until another claims it: an advance
            // then would fire no timer of its devices on the way, and a push left pending
            // would wake late, at the claim. Every shard's owner is waited for first.
            try await waitForEveryShardOwned()
            try await waitUntilOwnShardsAdopted()
            // Stored first: a member that starts listening after the order went out catches up to it.
            try await store.write([.setManualClock(at: target.millisecondsSinceEpoch)])
            async let others = bus.call(.advance(to: target))
            let moved: Result<Void, DeviceClockError>
            do {
                try await device.advance(to: target)
                moved = .success(())
            } catch {
                moved = .failure(error)
            }
            let failures = try await others
            try? await store.unlockClusterClock(timeout: configuration.lease)
            try moved.get()
            try ClusterCallError.check(failures, doing: "move its clock")
            return target
        } catch {
            try? await store.unlockClusterClock(timeout: configuration.lease)
            throw error
        }
    }

    /// Returns once every shard is held by a member that hears orders; throws
    /// `shardsWithoutOwner` when some still have none after a few claim intervals (at most
    /// 30 s, well within a proxy's wait for the answer).
    private func waitForEveryShardOwned() async throws {
        let deadline = ContinuousClock.now.advanced(by: min(max(configuration.lease * 3, .seconds(5)), .seconds(30)))
        while true {
            let locks = try await store.clusterLocks(timeout: configuration.lease)
            let unowned = (0..<configuration.shards).filter { shard in locks.shards[shard].map { !locks.listeners.contains($0) } ?? true }
            if unowned.isEmpty { return }
            guard ContinuousClock.now < deadline else { throw ClusterCallError.shardsWithoutOwner(unowned) }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Returns once the shards this member holds are put back in its device side (a claim's
    /// adoption may still be reading them), or after two leases, 10 s at most (then what it
    /// holds moves as it is).
    private func waitUntilOwnShardsAdopted() async throws {
        let deadline = ContinuousClock.now.advanced(by: min(configuration.lease * 2, .seconds(10)))
        while ContinuousClock.now < deadline {
            let locks = try await store.clusterLocks(timeout: configuration.lease)
            if locks.owned.isSubset(of: runtime.ownedShards ?? []) { return }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Forgets every device, record and fault rule on every member (the clock stays).
    func reset() async throws {
        try await store.removeClusterFaults(nil)
        try await device.reset()
        try ClusterCallError.check(try await bus.call(.reset), doing: "reset")
    }

    /// Adds a fault rule (`POST /v1/faults`'s fields) for the whole cluster; returns it as
    /// this member holds it. A rule with a `count` must name a device: each member counts
    /// on its own, and only a device's owner sees its pushes.
    func addFault(_ fields: [(String, JSONValue)]) async throws -> FaultRule {
        let rule = try FaultRule(json: fields)
        if rule.remaining != nil, rule.match.device == nil {
            throw FaultRule.Invalid(
                "in a cluster, a rule with a count must match a device (each receiver counts on its own; only a device's owner sees its pushes)")
        }
        guard device.endpoint.faultRules.count < FaultTable.capacity else { throw ClusterCallError.faultTableFull }
        let id = try await store.addClusterFault(JSONValue.object(fields).rendered)
        try await takeFaults()
        try ClusterCallError.check(try await bus.call(.faults), doing: "take the new fault rule")
        guard let added = device.endpoint.faultRules.first(where: { $0.id == id }) else { throw ClusterCallError.faultTableFull }
        return added
    }

    /// Removes the fault rule `id` (nil: every one) from the whole cluster; returns how many went.
    func removeFaults(_ id: UInt64?) async throws -> Int {
        let removed = try await store.removeClusterFaults(id)
        try await takeFaults()
        try ClusterCallError.check(try await bus.call(.faults), doing: "drop the fault rule")
        return removed
    }

    /// Makes the cluster's stored fault rules this member's.
    func takeFaults() async throws {
        var rules: [FaultRule] = []
        for (id, text) in try await store.clusterFaults() {
            guard let value = try? JSONValue.parse(text.utf8), case .object(let fields) = value,
                var rule = try? FaultRule(json: fields)
            else {
                logger.warning("a stored fault rule of the cluster cannot be read; it is left out", metadata: ["fault.id": "\(id)"])
                continue
            }
            rule.id = id
            rules.append(rule)
        }
        device.endpoint.setFaults(rules)
    }

    /// Makes the store's broadcast channels this member's.
    func takeChannels() async throws {
        guard let channels = device.runtime.channels else { return }
        channels.replace(with: try await store.channels())
    }

    /// Fans broadcast `id`, which another member recorded, out to this member's devices'
    /// activities, with its channel's storage policy (a channel deleted meanwhile stores nothing).
    func fanOut(broadcast id: UInt64) async throws {
        guard let record = try await store.broadcast(id: id) else { throw ClusterCallError.broadcastNotStored(id) }
        let channel = try? device.runtime.channels?.channel(record.channelID, bundleID: record.bundleID)
        try await device.runtime.fanOut(memberBroadcast: record, storagePolicy: channel?.configuration.storagePolicy ?? .noMessageStored)
    }

    /// This member started listening: it takes what it may have missed from the store, the
    /// cluster's clock, fault rules, channels and what each channel keeps. (It held no device
    /// while it did not listen, so a reset or a broadcast missed has no activity of its to
    /// change: a shard's new owner catches its activities up.) Returns whether it did.
    func catchUp() async -> Bool {
        do {
            if device.clock.mode == .manual, let stored = try await store.latestDeviceTime() {
                try await device.advance(to: DeviceInstant(millisecondsSinceEpoch: stored))
            }
            try await takeFaults()
            try await takeChannels()
            try await device.takeKeptMessages()
            return true
        } catch {
            logger.warning(
                "cannot take the cluster's clock, fault rules, channels and kept broadcasts from the store: this receiver claims no shard until it can",
                metadata: ["error": "\(PushStore.describe(error))"])
            return false
        }
    }

    /// Carries out another member's order; returns why it could not, or nil.
    func carryOut(_ order: ClusterNotice.Order) async -> String? {
        do {
            switch order {
            case .advance(let target):
                // At best: a store that cannot say leaves the shards as they are, still moved.
                do { try await waitUntilOwnShardsAdopted() } catch is CancellationError { throw CancellationError() } catch {}
                try await device.advance(to: target)
            // The sender deleted the cluster's records before the order went out: this member
            // forgets what it holds, and deletes nothing recorded since (it may carry the order
            // out late, frozen meanwhile, after its caller stopped waiting).
            case .reset: try await device.reset(records: .deletedByTheSender)
            case .faults: try await takeFaults()
            case .channels: try await takeChannels()
            case .broadcast(let id): try await fanOut(broadcast: id)
            }
            return nil
        } catch {
            return "\(configuration.name): \(error)"
        }
    }
}
