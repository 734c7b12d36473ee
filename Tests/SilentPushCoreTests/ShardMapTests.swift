import SilentPushCore
import Testing

/// The shard function: CRC-32 (IEEE) of the lowercased token, modulo the count.
@Suite struct ShardMapTests {
    /// The check values of the CRC catalogue and of zlib's `crc32`.
    @Test(arguments: [("", UInt32(0)), ("123456789", 0xCBF4_3926), ("The quick brown fox jumps over the lazy dog", 0x414F_A339)])
    func theChecksumIsIEEEs(text: String, crc: UInt32) {
        #expect(ShardMap.checksum(text.utf8) == crc)
    }

    @Test func aTokenInEitherCaseHasOneShard() throws {
        let map = try #require(ShardMap(count: 7))
        let token = "AB12" + String(repeating: "cd", count: 30)
        #expect(map.shard(of: token) == map.shard(of: token.lowercased()))
        #expect(map.shard(of: token) == Int(ShardMap.checksum(token.lowercased().utf8) % 7))
    }

    @Test func theCountIsRangeChecked() {
        #expect(ShardMap(count: 0) == nil && ShardMap(count: -1) == nil && ShardMap(count: ShardMap.maximumCount + 1) == nil)
        #expect(ShardMap(count: 1)?.shard(of: "ff") == 0)
        #expect(ShardMap(count: ShardMap.maximumCount)?.count == ShardMap.maximumCount)
    }

    /// Tokens spread over the shards: 3,000 tokens on 3 shards, none with fewer than 900.
    @Test func tokensSpreadOverTheShards() throws {
        let map = try #require(ShardMap(count: 3))
        var counts = [0, 0, 0]
        for index in 0..<3000 {
            var token = String(index, radix: 16)
            token = String(repeating: "0", count: 64 - token.count) + token
            counts[map.shard(of: token)] += 1
        }
        #expect(counts.allSatisfy { $0 >= 900 }, "\(counts)")
    }
}
