/// A broadcast channel's id: base64 text as APNs writes it in `apns-channel-id`. Apple says
/// not to assume its size; SilentPush issues 16 random bytes (24 characters) and takes any
/// canonical base64 of 1 to `maximumBytes` bytes.
public struct ChannelID: Hashable, Sendable, CustomStringConvertible {
    /// The id as sent and stored.
    public let text: String

    /// The longest id, in decoded bytes, that a request may name (*assumed*: Apple gives no
    /// size; past it APNs answers `BadChannelId`, "greater than the allowed length").
    public static let maximumBytes = 64

    /// Reads `apns-channel-id`: nil (BadChannelId) unless canonical base64 of 1 to
    /// `maximumBytes` bytes.
    public init?(header text: String) {
        // The length first: nothing long is decoded.
        guard text.utf8.count <= (Self.maximumBytes + 2) / 3 * 4, let bytes = Base64.decode(text.utf8),
            (1...Self.maximumBytes).contains(bytes.count)
        else { return nil }
        self.text = text
    }

    /// Reads `apns-channel-id` as a request sent it: `MissingChannelId` when absent or
    /// empty, `BadChannelId` unless canonical base64 within the length.
    public init(requestHeader text: String?) throws(APNsReason) {
        guard let text, !text.isEmpty else { throw .missingChannelId }
        guard let id = ChannelID(header: text) else { throw .badChannelId }
        self = id
    }

    /// A new id from `bytes` (random, made by the caller).
    public init(bytes: [UInt8]) {
        text = Base64.encode(bytes)
    }

    public var description: String { text }
}
