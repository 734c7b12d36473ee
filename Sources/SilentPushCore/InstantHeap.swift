/// A min-heap of values due at instants: the earliest first, ties in insertion order. Its
/// owner checks, when one comes due, whether it still applies (entries are never removed
/// early: cheaper than finding them). The wake policy's timers and those of the Live
/// Activity, reload and transfer policies are each one.
@usableFromInline struct InstantHeap<Instant: Comparable & Sendable, Value: Sendable>: Sendable {
    @usableFromInline struct Entry: Sendable {
        @usableFromInline var at: Instant
        @usableFromInline var sequence: UInt64
        @usableFromInline var value: Value

        @inlinable init(at: Instant, sequence: UInt64, value: Value) {
            self.at = at
            self.sequence = sequence
            self.value = value
        }

        @inlinable func precedes(_ other: Entry) -> Bool { at < other.at || (at == other.at && sequence < other.sequence) }
    }

    @usableFromInline var entries: [Entry] = []
    @usableFromInline var sequence: UInt64 = 0

    @inlinable init() {}

    /// When the earliest entry is due; nil when there is none.
    @inlinable var nextDue: Instant? { entries.first?.at }

    /// Entries held.
    @inlinable var count: Int { entries.count }

    /// Adds `value`, due at `at`.
    @inlinable mutating func insert(_ value: Value, at: Instant) {
        sequence += 1
        entries.append(Entry(at: at, sequence: sequence, value: value))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].precedes(entries[parent]) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns the earliest entry if it is due at or before `now`.
    @inlinable mutating func popDue(_ now: Instant) -> (at: Instant, value: Value)? {
        guard let first = entries.first, first.at <= now else { return nil }
        let last = entries.removeLast()
        if !entries.isEmpty {
            entries[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var smallest = parent
                if left < entries.count, entries[left].precedes(entries[smallest]) { smallest = left }
                if right < entries.count, entries[right].precedes(entries[smallest]) { smallest = right }
                guard smallest != parent else { break }
                entries.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return (first.at, first.value)
    }
}
