import Logging
import ServiceLifecycle
import SilentPushCore
import SilentPushStore
import Synchronization

/// A clustered receiver's membership, as a `Service`: every claim interval it checks its
/// claims (a heartbeat on its writer's session), claims free shards as `ShardClaimPolicy`
/// decides, puts their devices back from the store (`DeviceRuntime.adopt`), and takes a new
/// block of ids when another member has taken a newer one (so ids stay roughly in time order
/// across members) or half of its own is used.
///
/// When its writer's session ends (the store says so, or a check goes unanswered for the
/// lease), the order is what makes it safe:
/// 1. no write of this receiver commits any more: its writes ran on that session;
/// 2. it lets every device go (`DeviceRuntime.releaseShards`), recording nothing, and takes
///    pushes for none (503);
/// 3. only once PostgreSQL has ended the session are its claims free for others;
/// 4. it joins again on a new session and claims only shards that are free.
/// A push answered 200 was committed on the session that held its shard's claim.
package final class ClusterMembership: Service, Sendable {
    let configuration: ClusterConfiguration
    let store: PushStore
    let runtime: DeviceRuntime
    /// The device side as the admin API changes it: the clock, reset, fault rules.
    let device: DeviceControl
    /// Orders to and from the other members (clock, reset, fault rules).
    let bus: ClusterBus
    let logger: Logger
    private let state: Mutex<State>
    /// Raised when the store's writer session ended.
    private let sessionEnded = AsyncSignal()
    /// Whether this member is carrying out an advance it was asked for: PostgreSQL lets the
    /// session that holds the cluster's clock lock take it again, so a second one asked of
    /// this member is refused here.
    let advancing = Atomic<Bool>(false)
    /// Tokens the configuration file registers: its say stands over a stored registration
    /// put back with a shard.
    let configuredTokens: Set<String>

    private struct State {
        var policy: ShardClaimPolicy
        /// The first id of the block this member numbers from.
        var block: UInt64
    }

    /// Joins the cluster on the device side's store (checking the shard count) and numbers the
    /// device side's ids from a block of the cluster's; claims nothing yet, and takes the
    /// cluster's clock and fault rules once it listens (`run()` does both).
    package static func join(
        _ configuration: ClusterConfiguration, device: DeviceControl, configuredTokens: Set<String> = [], logger: Logger
    ) async throws -> ClusterMembership {
        let runtime = device.runtime
        guard let map = runtime.shardMap else { throw ClusterConfigurationError.shardCount(configuration.shards) }
        let store = runtime.store
        let bus = ClusterBus(store: store, interval: configuration.claimInterval, lease: configuration.lease, logger: logger)
        bus.joined(session: try await joinStore(configuration, store, clock: device.clock.mode, first: true))
        let block = try await store.takeIDBlock(timeout: configuration.lease)
        runtime.continueIDs(from: block)
        let membership = ClusterMembership(
            configuration, map: map, device: device, bus: bus, block: block, configuredTokens: configuredTokens, logger: logger)
        bus.perform(
            { [weak membership] order in
                guard let membership else { return "this receiver is stopping" }
                return await membership.carryOut(order)
            },
            catchUp: { [weak membership] in await membership?.catchUp() ?? false })
        runtime.channels?.relay(through: ClusterChannelRelay(bus: bus, logger: logger))
        return membership
    }

    /// Joins on the store's writer session: at start, and again after that session ended.
    private static func joinStore(
        _ configuration: ClusterConfiguration, _ store: PushStore, clock: DeviceClock.Mode, first: Bool = false
    ) async throws -> Int32 {
        try await store.joinCluster(
            shards: configuration.shards, name: configuration.name, manualClock: clock == .manual,
            now: DeviceClock.systemNow.millisecondsSinceEpoch, uniqueName: first)
    }

    private init(
        _ configuration: ClusterConfiguration, map: ShardMap, device: DeviceControl, bus: ClusterBus, block: UInt64,
        configuredTokens: Set<String>, logger: Logger
    ) {
        self.configuration = configuration
        self.configuredTokens = configuredTokens
        self.store = device.store
        self.runtime = device.runtime
        self.device = device
        self.bus = bus
        self.logger = logger
        state = Mutex(State(policy: ShardClaimPolicy(map: map), block: block))
        // The claims went with the session: the devices go at once, not at the next tick (which
        // may be a claim interval away, or held up in a read), so no push or timer is taken
        // for a shard another member may own by then.
        // The store says so from a query's or a drain's end, never under the runtime's lock (the
        // runtime starts the writer after releasing it), so the step can be taken here.
        store.onSessionEnded { [runtime, sessionEnded, logger] in
            let owned = runtime.ownedShards ?? []
            runtime.releaseShards()
            logger.error(
                "the store session that held this receiver's shards ended: its devices are let go (pushes to them are answered 503) until it joins again and claims free shards",
                metadata: ["cluster.released": "\(owned.sorted().map(String.init).joined(separator: ","))"])
            sessionEnded.raise()
        }
    }

    /// Until graceful shutdown: listens for the other members' orders and carries them out
    /// (`ClusterBus`), and ticks every claim interval (sooner when the session ends). The
    /// store closes after the device side has drained, ending the session and freeing the
    /// claims for the other members.
    package func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.bus.run() }
                group.addTask { await self.tickUntilCancelled() }
                await group.next()
                group.cancelAll()
            }
        }
    }

    private func tickUntilCancelled() async {
        while !Task.isCancelled {
            await self.waitForTick()
            guard !Task.isCancelled else { return }
            do {
                try await self.tick()
            } catch is CancellationError {
                return
            } catch PushStoreError.sessionEnded {
                await self.sessionLost()
            } catch {
                // A read or claim that failed with the session still there: tried again next tick.
                self.logger.warning("cannot check this receiver's shards", metadata: ["error": "\(PushStore.describe(error))"])
            }
        }
    }

    /// Returns after the claim interval, or once the session ended.
    private func waitForTick() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: self.configuration.claimInterval) }
            group.addTask { await self.sessionEnded.wait() }
            await group.next()
            group.cancelAll()
        }
    }

    /// Checks the claims, claims free shards and puts their devices back; moves to a new
    /// block of ids when due.
    func tick() async throws {
        let lease = configuration.lease
        let releasesSeen = runtime.shardReleases
        let locks = try await store.clusterLocks(timeout: lease)
        // A member that does not hear the others' orders yet, or has not caught up from the
        // store since it started to, holds no device.
        guard locks.listeners.contains(locks.session), bus.hasCaughtUp(on: locks.session) else { return }
        let claims = state.withLock { state in
            state.policy.tick(members: locks.members.count, owned: locks.owned, held: Set(locks.shards.keys), offset: Int(locks.session))
        }
        let claimed = try await store.claimShards(claims, timeout: lease)
        // Claimed now, or before and not yet put back (a read that failed is tried again).
        let adopting = locks.owned.union(claimed).subtracting(runtime.ownedShards ?? [])
        if !adopting.isEmpty {
            let snapshot = try await runtime.adopt(shards: adopting, releasesSeen: releasesSeen)
            // Tokens registered at run time are taken at their new owner, and tokens the app
            // gave up answer 410 there too.
            device.endpoint.withDevices { registry in
                for (token, topics) in snapshot.registered where !configuredTokens.contains(token.lowercased()) {
                    registry.register(token, topics: topics)
                }
                for (token, at) in snapshot.unregistered { registry.unregister(token, at: at) }
            }
            logger.notice(
                "claimed shards \(adopting.sorted().map(String.init).joined(separator: ",")): resumed \(snapshot.resumed.summary)",
                metadata: ["cluster.owned": "\(runtime.ownedShards?.count ?? 0)"])
        } else {
            // A catch-up whose read failed at the last claim is tried again.
            await runtime.catchUpMissedBroadcasts()
        }
        // Another member recorded a push past where this one numbers next: this one is behind
        // in id order and moves on, even idle, so ids stay in arrival order to within a claim
        // interval. (A member that merely took a newer block moves no one: no leapfrogging.)
        let recorded = try await store.lastIDs().push
        let (block, next) = state.withLock { ($0.block, runtime.nextPushID.load(ordering: .relaxed)) }
        if recorded >= next || next &- block > PushStore.idBlockSize / 2 {
            let next = try await store.takeIDBlock(timeout: lease)
            runtime.continueIDs(from: next)
            state.withLock { $0.block = next }
        }
    }

    /// The session that held the claims ended: every device goes, then the receiver joins
    /// again (retrying each claim interval) and probes the store so pushes are taken again.
    private func sessionLost() async {
        // Let go already, and said so, when the store said the session ended.
        runtime.releaseShards()
        // Said once at warning; each later try of the outage at debug, until it joins.
        var tries = 0
        while !Task.isCancelled {
            do {
                bus.joined(session: try await Self.joinStore(configuration, store, clock: device.clock.mode))
                try? await store.probe()
                logger.notice("joined the cluster again")
                return
            } catch {
                logger.log(
                    level: tries == 0 ? .warning : .debug, "cannot join the cluster again (trying each claim interval)",
                    metadata: ["error": "\(PushStore.describe(error))"])
                tries += 1
                try? await Task.sleep(for: configuration.claimInterval)
            }
        }
    }
}
