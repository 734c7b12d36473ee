/// An app on a device, as Live Activities are kept: by device token and bundle id.
public struct LiveActivityApp: Hashable, Sendable, CustomStringConvertible {
    /// The device's token.
    public var device: String
    /// The app's bundle id.
    public var bundleID: String

    /// The app `bundleID` on the device with token `device`.
    public init(device: String, bundleID: String) {
        self.device = device
        self.bundleID = bundleID
    }

    public var description: String { "\(bundleID) on \(device)" }

    /// The bundle id a Live Activity push's topic names: the topic without its push-type suffix.
    package static func bundleID(ofTopic topic: String) -> String {
        APNsPushType.liveactivity.bundleID(ofTopic: topic)
    }

    /// The app's push-to-start token: the device token followed by 16 hex digits derived
    /// from it and the bundle id, so a push names its device and app with nothing stored
    /// (a restart gives the same token). A device token longer than 184 digits has none
    /// that APNs takes (tokens are at most 200).
    public var pushToStartToken: String { pushToStartToken(in: nil) }

    /// The bundle id of `topic`'s app when `token` is that app's push-to-start token on the
    /// device whose token it starts with (plain, or in a cluster of `map`'s shards): a token
    /// of 80 hex digits or more whose last 16 are the app's tag. nil for any other token
    /// (a device's own, 64 digits, is told by its length alone).
    package static func pushToStartApp(ofToken token: String, topic: String, in map: ShardMap?) -> String? {
        guard token.utf8.count >= APNsRequestValidator.deviceTokenHexLength.lowerBound + 16 else { return nil }
        let bundleID = APNsPushType.bundleID(ofAnyTopic: topic)
        return LiveActivityApp(device: String(token.dropLast(16)), bundleID: bundleID).pushToStartToken(in: map) == token ? bundleID : nil
    }

    /// The app's push-to-start token in a cluster of `map`'s shards: one in its device's
    /// shard, so the proxy routes a push to it to the device's owner. When the plain token
    /// lands elsewhere, its last 4 hex digits name the first variant (1…) that lands there.
    package func pushToStartToken(in map: ShardMap?) -> String {
        let plain = device + Self.tag(device: device, bundleID: bundleID)
        guard let map else { return plain }
        let shard = map.shard(of: device)
        if map.shard(of: plain) == shard { return plain }
        for variant in 1...UInt16.max {
            let token = device + Self.tag(device: device, bundleID: bundleID, variant: variant)
            if map.shard(of: token) == shard { return token }
        }
        return plain  // never reached for up to 1,024 shards: each variant lands there with odds 1 in the shard count
    }

    /// The app whose push-to-start token `token` is (plain, or a variant a cluster made), for
    /// a push whose topic names `bundleID`.
    public static func pushToStart(token: String, bundleID: String) -> LiveActivityApp? {
        guard token.utf8.count > 16 else { return nil }
        let device = String(token.dropLast(16))
        let tag = token.suffix(16)
        if tag == Self.tag(device: device, bundleID: bundleID) { return LiveActivityApp(device: device, bundleID: bundleID) }
        guard let variant = UInt16(tag.suffix(4), radix: 16), variant > 0, tag == Self.tag(device: device, bundleID: bundleID, variant: variant)
        else { return nil }
        return LiveActivityApp(device: device, bundleID: bundleID)
    }

    /// 16 hex digits from the device and bundle id; a variant's are 12 from them and the
    /// variant, then the variant's 4.
    private static func tag(device: String, bundleID: String, variant: UInt16 = 0) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        let input = variant == 0 ? "push-to-start\u{0}\(device)\u{0}\(bundleID)" : "push-to-start\u{0}\(device)\u{0}\(bundleID)\u{0}\(variant)"
        for byte in input.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        var z = hash &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        let hex = String(z, radix: 16)
        let digits = String(repeating: "0", count: 16 - hex.count) + hex
        guard variant > 0 else { return digits }
        let suffix = String(variant, radix: 16)
        return digits.prefix(12) + String(repeating: "0", count: 4 - suffix.count) + suffix
    }
}
