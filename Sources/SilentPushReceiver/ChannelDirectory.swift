import Synchronization
import SilentPushCore
import SilentPushStore

/// The receiver's broadcast channels: the table the channel-management API and broadcasts
/// consult, kept under a lock, with every change committed to the store before it is
/// answered (a 201 or 204 means recorded). Broadcasts are numbered here and recorded by
/// the device side, with what they did.
package final class ChannelDirectory: Sendable {
    private let table: Mutex<ChannelTable>
    private let store: PushStore
    /// The environment the receiver serves: channels of the other are unknown to it.
    package let environment: APNsEnvironment
    /// Apps whose broadcast capability is off (`FeatureNotEnabled`).
    private let featureDisabled: Set<String>
    private let now: @Sendable () -> Int64
    /// The id of the last broadcast numbered.
    private let lastBroadcast: Atomic<UInt64>
    /// In a cluster: how the other members learn of a change or a broadcast.
    private let relay = Mutex<(any ChannelRelay)?>(nil)

    /// A directory holding the store's channels, read from it.
    package convenience init(
        store: PushStore, environment: APNsEnvironment, featureDisabled: Set<String> = [], limit: Int = ChannelTable.defaultLimit,
        now: @escaping @Sendable () -> Int64 = APNsEndpoint.systemMilliseconds
    ) async throws {
        self.init(
            store: store, channels: try await store.channels(), lastBroadcastID: try await store.lastBroadcastID(), environment: environment,
            featureDisabled: featureDisabled, limit: limit, now: now)
    }

    /// A directory holding `channels`, which `store` holds, whose last broadcast was numbered
    /// `lastBroadcastID`.
    package init(
        store: PushStore, channels: [BroadcastChannel], lastBroadcastID: UInt64, environment: APNsEnvironment,
        featureDisabled: Set<String> = [], limit: Int = ChannelTable.defaultLimit,
        now: @escaping @Sendable () -> Int64 = APNsEndpoint.systemMilliseconds
    ) {
        var table = ChannelTable(limit: limit)
        for channel in channels { table.insert(channel) }
        self.table = Mutex(table)
        self.store = store
        self.environment = environment
        self.featureDisabled = featureDisabled
        self.now = now
        lastBroadcast = Atomic(lastBroadcastID)
    }

    /// Refuses an app whose broadcast capability is off: `FeatureNotEnabled`.
    package func checkFeatureEnabled(bundleID: String) throws(APNsReason) {
        guard !featureDisabled.contains(bundleID) else { throw .featureNotEnabled }
    }

    /// What a change that could not be recorded fails with.
    package struct NotRecorded: Error {
        package let underlying: any Error
    }

    /// Creates a channel for `bundleID` with a new random id; `completion` gets it once it is
    /// recorded. Throws `CannotCreateChannelConfig` at once at the limit.
    package func create(
        bundleID: String, configuration: ChannelConfiguration,
        completion: @escaping @Sendable (Result<BroadcastChannel, NotRecorded>) -> Void
    ) throws(APNsReason) {
        let channel = try table.withLock { table throws(APNsReason) -> BroadcastChannel in
            try table.admitsAnother(bundleID: bundleID, environment: environment)
            var id: ChannelID
            repeat {
                id = ChannelID(bytes: (0..<16).map { _ in UInt8.random(in: .min ... .max) })
            } while (try? table.channel(id, bundleID: bundleID, environment: environment)) != nil
            let channel = BroadcastChannel(
                id: id, bundleID: bundleID, environment: environment, configuration: configuration, createdAt: now())
            // Held while it is written, so concurrent creates count it against the limit.
            table.insert(channel)
            return channel
        }
        store.write([.insertChannel(channel)]) { [self] result in
            switch result {
            case .success: announce("create a channel") { completion(.success(channel)) }
            case .failure(let error):
                table.withLock { _ = $0.remove(channel.id, bundleID: bundleID, environment: environment) }
                completion(.failure(NotRecorded(underlying: error)))
            }
        }
    }

    /// Creates a channel and returns it once it is recorded.
    package func create(bundleID: String, configuration: ChannelConfiguration) async throws -> BroadcastChannel {
        try await withCheckedThrowingContinuation { continuation in
            do {
                try create(bundleID: bundleID, configuration: configuration) { continuation.resume(with: $0) }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// The channel `id` of `bundleID` (`ChannelNotRegistered` when there is none).
    package func channel(_ id: ChannelID, bundleID: String) throws(APNsReason) -> BroadcastChannel {
        try table.withLock { table throws(APNsReason) in try table.channel(id, bundleID: bundleID, environment: environment) }
    }

    /// Deletes channel `id` of `bundleID`; `completion` runs once that is recorded. Throws
    /// `ChannelNotRegistered` at once when there is none.
    package func delete(
        _ id: ChannelID, bundleID: String, completion: @escaping @Sendable (Result<Void, NotRecorded>) -> Void
    ) throws(APNsReason) {
        let removed = try table.withLock { table throws(APNsReason) -> BroadcastChannel in
            guard let removed = table.remove(id, bundleID: bundleID, environment: environment) else { throw .channelNotRegistered }
            return removed
        }
        store.write([.deleteChannel(id, bundleID: bundleID, environment: environment)]) { [self] result in
            switch result {
            case .success: announce("delete a channel") { completion(.success(())) }
            case .failure(let error):
                table.withLock { $0.insert(removed) }
                completion(.failure(NotRecorded(underlying: error)))
            }
        }
    }

    /// Deletes a channel and returns once that is recorded.
    package func delete(_ id: ChannelID, bundleID: String) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            do {
                try delete(id, bundleID: bundleID) { continuation.resume(with: $0) }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// The app's channels, oldest first.
    package func channels(bundleID: String) -> [BroadcastChannel] {
        table.withLock { $0.channels(bundleID: bundleID, environment: environment) }
    }
}

extension ChannelDirectory {
    /// A broadcast APNs accepts: checked against its channel (`ChannelNotRegistered`,
    /// `BadExpirationDate` on a channel that stores nothing), then its payload, then
    /// numbered. Returns its record and its channel's storage policy, for the device side to
    /// record and fan out.
    package func broadcast(
        _ request: BroadcastRequest, bundleID: String, requestID: String, payload: [UInt8], receivedAt: DeviceInstant
    ) throws(APNsReason) -> (record: BroadcastRecord, storagePolicy: MessageStoragePolicy) {
        let channel = try channel(request.channelID, bundleID: bundleID)
        try request.check(against: channel)
        try BroadcastRequest.checkPayload(payload)
        let id = lastBroadcast.add(1, ordering: .relaxed).newValue
        let record = BroadcastRecord(
            id: id, requestID: requestID,
            uniqueID: environment == .sandbox ? APNsIDGenerator.uniqueID(apnsID: requestID, pushID: id) : nil, bundleID: bundleID,
            environment: environment, channelID: request.channelID, priority: request.priority, expiration: request.expiration,
            receivedAt: receivedAt, payload: payload)
        return (record, channel.configuration.storagePolicy)
    }

    /// Tells the other members of a cluster of a recorded `change`, then runs `answer`; alone,
    /// runs it at once.
    private func announce(_ change: String, then answer: @escaping @Sendable () -> Void) {
        guard let relay = relay.withLock({ $0 }) else { return answer() }
        relay.channelsChanged(change, then: answer)
    }

    /// In a cluster: channel changes and broadcasts reach the other members through `relay`
    /// before they are answered.
    package func relay(through relay: any ChannelRelay) {
        self.relay.withLock { $0 = relay }
    }

    /// The cluster's relay, nil for a receiver alone.
    package var clusterRelay: (any ChannelRelay)? { relay.withLock { $0 } }

    /// Holds `channels` (every environment's) instead: the store's, after another member of
    /// the cluster changed them.
    package func replace(with channels: [BroadcastChannel]) {
        table.withLock { table in
            var fresh = ChannelTable(limit: table.limit)
            for channel in channels { fresh.insert(channel) }
            table = fresh
        }
    }

    /// Numbers broadcasts from `first` on, when past the next id: a clustered receiver's new
    /// block of ids.
    package func continueIDs(from first: UInt64) {
        lastBroadcast.raise(to: max(first, 1) - 1)
    }

    /// The broadcasts APNs accepted in this environment, newest first: of `bundleID` (every
    /// app when nil), on `channel` when given.
    package func broadcasts(bundleID: String?, channel: ChannelID? = nil, limit: Int = 100) async throws -> [BroadcastRecord] {
        try await store.broadcasts(bundleID: bundleID, environment: environment, channelID: channel, limit: limit)
    }

    /// Whether `bundleID` has channel `id` in this environment.
    package func exists(_ id: ChannelID, bundleID: String) -> Bool {
        (try? channel(id, bundleID: bundleID)) != nil
    }
}
