/// A map that keeps at most `capacity` entries, dropping the least recently used.
/// Not thread-safe: the owner guards it.
public struct BoundedCache<Key: Hashable, Value> {
    private var entries: [Key: (value: Value, stamp: UInt64)] = [:]
    private var clock: UInt64 = 0
    /// The most entries kept.
    public let capacity: Int

    /// An empty cache.
    public init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    /// Entries held.
    public var count: Int { entries.count }

    /// The value for `key`, marking it recently used.
    public mutating func value(for key: Key) -> Value? {
        guard let entry = entries[key] else { return nil }
        clock &+= 1
        entries[key] = (entry.value, clock)
        return entry.value
    }

    /// Stores `value`; when full, the oldest eighth goes first (amortised, no list to keep).
    public mutating func insert(_ value: Value, for key: Key) {
        if entries[key] == nil, entries.count >= capacity {
            let drop = max(1, capacity / 8)
            let oldest = entries.sorted { $0.value.stamp < $1.value.stamp }.prefix(drop).map(\.key)
            for key in oldest { entries[key] = nil }
        }
        clock &+= 1
        entries[key] = (value, clock)
    }
}
