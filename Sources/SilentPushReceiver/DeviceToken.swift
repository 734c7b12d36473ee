import SilentPushCore

/// New tokens the device issues: an activity's update token, a reinstall's device token.
enum DeviceToken {
    /// A new token. In a cluster (`map`), one in the shard of `token` (the device's, or its
    /// push-to-start token, which is in the same shard), so the proxy routes pushes to it to
    /// the device's owner.
    static func random(inShardOf token: String, in map: ShardMap?) -> String {
        var fresh = random()
        guard let map else { return fresh }
        let shard = map.shard(of: token)
        // Each try lands there with odds 1 in the shard count: 64 times as many tries miss with odds below e^-64.
        var tries = 1
        while map.shard(of: fresh) != shard, tries < map.count * 64 {
            fresh = random()
            tries += 1
        }
        return fresh
    }

    /// A new token: 32 random bytes as hex, shaped as a device token.
    static func random() -> String {
        var random = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let hex = String(random.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }
}
