/// Which shard of a cluster a device belongs to: the CRC-32 of its token's lowercased text,
/// modulo the number of shards. CRC-32 is the IEEE 802.3 one (reflected, polynomial
/// 0xEDB88320, as Ethernet, gzip and PNG compute it), which HAProxy's `crc32` converter
/// computes too, so a proxy in front routes each device's pushes to the shard's owner with
/// `path,field(4,/),lower,crc32,mod(N)`.
package struct ShardMap: Sendable, Equatable {
    /// The most shards a cluster may have: each is an advisory lock, a backend in the
    /// proxy's configuration and a health check (*assumed*: enough for any test fleet).
    package static let maximumCount = 1024

    /// How many shards the cluster has.
    package let count: Int

    /// A map of `count` shards; nil when `count` is not from 1 to `maximumCount`.
    package init?(count: Int) {
        guard (1...Self.maximumCount).contains(count) else { return nil }
        self.count = count
    }

    /// The shard of the device whose token is `token` (hex digits in either case).
    package func shard(of token: some StringProtocol) -> Int {
        Int(Self.checksum(token.lowercased().utf8) % UInt32(count))
    }

    /// The CRC-32 (IEEE 802.3) of `bytes`.
    package static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// The remainder of each byte value, reflected.
    private static let table: [UInt32] = (0..<256).map { value in
        var crc = UInt32(value)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        return crc
    }
}
