/// Whether a channel keeps its latest message for devices that are offline or subscribe
/// later (`message-storage-policy`, fixed when the channel is created).
public enum MessageStoragePolicy: Int, Sendable, CaseIterable, Codable {
    /// `0`: No Message Stored. A broadcast on it must carry `apns-expiration: 0`.
    case noMessageStored = 0
    /// `1`: Most Recent Message Stored, for at most 8 hours.
    case mostRecentMessageStored = 1
}
