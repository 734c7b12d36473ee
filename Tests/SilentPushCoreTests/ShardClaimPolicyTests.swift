import SilentPushCore
import Testing

/// Which free shards a cluster member claims at each tick, given who holds what.
@Suite struct ShardClaimPolicyTests {
    static let map = ShardMap(count: 8)!

    @Test func aMemberClaimsItsFairShareOfFreeShardsFromItsOffset() {
        var policy = ShardClaimPolicy(map: Self.map)
        #expect(policy.tick(members: 3, owned: [], held: [], offset: 5) == [5, 6, 7])
        #expect(policy.tick(members: 1, owned: [], held: [], offset: 0).count == 8)
    }

    @Test func aMemberAtItsShareClaimsNothingUntilAShardStaysFreeForATick() {
        var policy = ShardClaimPolicy(map: Self.map)
        // Two members hold everything but shard 7; this one holds its share (4 of 8).
        let held: Set<Int> = [0, 1, 2, 3, 4, 5, 6]
        #expect(policy.tick(members: 2, owned: [0, 1, 2, 3], held: held).isEmpty)
        #expect(policy.tick(members: 2, owned: [0, 1, 2, 3], held: held) == [7], "free for a whole tick: anyone claims it")
    }

    @Test func survivorsClaimADeadMembersShardsAndAReturningMemberClaimsOnlyFreeOnes() {
        var survivor = ShardClaimPolicy(map: Self.map)
        // Three members held 3, 3 and 2; the third died: two members, its shards free.
        #expect(survivor.tick(members: 2, owned: [0, 1, 2], held: [0, 1, 2, 3, 4, 5]) == [6])
        var returning = ShardClaimPolicy(map: Self.map)
        #expect(returning.tick(members: 3, owned: [], held: Set(0..<8)).isEmpty, "no shard moves back: no flapping")
        #expect(returning.tick(members: 3, owned: [], held: Set(0..<8)).isEmpty)
    }

    @Test func anOffsetOutsideTheShardsStillOrdersThem() {
        var policy = ShardClaimPolicy(map: Self.map)
        #expect(policy.tick(members: 4, owned: [], held: [], offset: -3) == [5, 6])
        var other = ShardClaimPolicy(map: Self.map)
        #expect(other.tick(members: 4, owned: [], held: [], offset: 1_000_003) == [3, 4])
    }
}
