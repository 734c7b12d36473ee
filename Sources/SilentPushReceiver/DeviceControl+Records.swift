import SilentPushCore
import SilentPushStore

/// The device side's records as they are committed: what tests assert on, and what the
/// admin API serves. Reads that return the store's own types are `package`: the public API
/// names no store type (users read records through the admin API or `pushsend expect`).
extension DeviceControl {
    /// The push with this `apns-id` (the latest, when a provider reused one).
    package func push(apnsID: String) async throws -> PushRecord? {
        try await store.push(apnsID: apnsID)
    }

    /// The push APNs answered with this `apns-unique-id` (development environment).
    package func push(uniqueID: String) async throws -> PushRecord? {
        try await store.push(uniqueID: uniqueID)
    }

    /// The pushes `query` asks for, newest first.
    package func pushes(_ query: PushQuery = PushQuery()) async throws -> [PushRecord] {
        var query = query
        query.deviceToken = query.deviceToken.map(Self.stored)
        return try await store.pushes(query)
    }

    /// The pushes recorded (those APNs refused too, fate `rejected`), newest first, for a
    /// device and/or topic: the newest `limit`.
    public func receivedPushes(deviceToken: String? = nil, topic: String? = nil, limit: Int = 100) async throws -> [ReceivedPush] {
        try await pushes(PushQuery(deviceToken: deviceToken, topic: topic, limit: max(0, limit))).map { record in
            ReceivedPush(
                apnsID: record.apnsID, deviceToken: record.deviceToken, topic: record.topic, pushType: APNsPushType(rawValue: record.pushType),
                priority: APNsPriority(rawValue: record.priority), receivedAt: DeviceInstant(millisecondsSinceEpoch: record.receivedAt),
                expiresAt: record.expiresAt.map(DeviceInstant.init(millisecondsSinceEpoch:)), collapseID: record.collapseID,
                payload: record.payload, fate: record.fate)
        }
    }

    /// Wakes, newest first, for a device and/or topic.
    public func wakes(deviceToken: String? = nil, topic: String? = nil, limit: Int = 100) async throws -> [WakeRecord] {
        let deviceToken = deviceToken.map(Self.stored)
        return try await store.wakes(deviceToken: deviceToken, topic: topic, limit: limit)
    }

    /// The apns-ids of the pushes coalesced into wake `wakeID` (its own push not among them).
    public func coalescedAPNsIDs(wakeID: UInt64) async throws -> [String] {
        try await store.coalescedAPNsIDs(wakeID: wakeID)
    }

    /// How many pushes have each fate and how many wakes each result, as `/v1/stats` says.
    package func counts() async throws -> StoreCounts {
        try await store.counts()
    }

    /// The latest content fetched for `deviceToken`, `topic` and `url`.
    package func content(deviceToken: String, topic: String, url: String) async throws -> ContentRecord? {
        try await store.content(deviceToken: Self.stored(deviceToken), topic: topic, url: url)
    }

    /// A fetched content's body, by its SHA-256, while it is kept.
    public func contentBody(sha256: String) async throws -> [UInt8]? {
        try await store.contentBody(sha256: sha256)
    }

    /// Transactions the store has ended (committed or failed): pass it to
    /// `waitForTransaction(after:)`.
    package var transactionsEnded: Int { store.transactionsEnded }

    /// Returns once more than `count` transactions have ended, or the task is cancelled.
    package func waitForTransaction(after count: Int) async {
        await store.waitForTransaction(after: count)
    }
}
