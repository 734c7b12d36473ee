import SilentPushCore

/// A push as stored: what APNs accepted and what became of it.
package struct PushRecord: Sendable, Equatable {
    /// The policy's reference (unique per store).
    package var id: UInt64
    package var apnsID: String
    package var deviceToken: String
    package var topic: String
    package var pushType: String
    package var priority: Int
    /// Device-clock ms since the epoch.
    package var receivedAt: Int64
    /// Device-clock ms since the epoch; nil: no expiry.
    package var expiresAt: Int64?
    package var collapseID: String?
    package var payload: [UInt8]
    package var warnings: [String]
    package var fate: PushFate
    /// The slot generation it waited in, if it did.
    package var generation: UInt32?
    /// The push it replaced in its app's slot (coalesced into the same slot generation).
    /// Inserting this record writes that push's fate: coalesced, waiting for the wake that
    /// closes the generation.
    package var replaced: UInt64?
    /// APNs held it from its arrival, the device offline (`apns_storage` 2): it expires at
    /// the latest APNs's storage limit after `receivedAt`, also after a restart.
    package var heldAtAPNs = false

    /// A record.
    package init(
        id: UInt64, apnsID: String, deviceToken: String, topic: String, pushType: String, priority: Int,
        receivedAt: Int64, expiresAt: Int64?, collapseID: String?, payload: [UInt8], warnings: [String],
        fate: PushFate, generation: UInt32? = nil, replaced: UInt64? = nil, heldAtAPNs: Bool = false
    ) {
        self.id = id
        self.apnsID = apnsID
        self.deviceToken = deviceToken
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.receivedAt = receivedAt
        self.expiresAt = expiresAt
        self.collapseID = collapseID
        self.payload = payload
        self.warnings = warnings
        self.fate = fate
        self.generation = generation
        self.replaced = replaced
        self.heldAtAPNs = heldAtAPNs
    }
}
