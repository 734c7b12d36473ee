/// Which free shards a cluster member claims at each tick: up to its fair share (the shard
/// count over the live members, rounded up), and any shard that stayed free for a whole tick
/// (so no shard stays unowned while a member lives). It never gives a shard up: a member that
/// comes back finds its old shards owned and claims only free ones, so shards do not flap.
package struct ShardClaimPolicy: Sendable, Equatable {
    /// The cluster's shards.
    package let map: ShardMap
    /// The shards free at the last tick.
    private var lastFree: Set<Int> = []

    package init(map: ShardMap) {
        self.map = map
    }

    /// One tick: `members` live (this one among them), `owned` by this member, `held` by
    /// anyone (owned among them). Returns the shards to try to claim, in order: from
    /// `offset` on (members start at different shards, so their first claims collide less).
    package mutating func tick(members: Int, owned: Set<Int>, held: Set<Int>, offset: Int = 0) -> [Int] {
        let free = Set(0..<map.count).subtracting(held).subtracting(owned)
        defer { lastFree = free }
        let share = (map.count + max(members, 1) - 1) / max(members, 1)
        let start = ((offset % map.count) + map.count) % map.count
        let ordered = free.sorted { ($0 - start + map.count) % map.count < ($1 - start + map.count) % map.count }
        var claims = Array(ordered.prefix(max(0, share - owned.count)))
        claims += ordered.filter { lastFree.contains($0) && !claims.contains($0) }
        return claims
    }
}
