/// The fault rules in force, first added first: the first rule that matches a request, in its
/// window, and wins its draw decides. Pure: the caller gives the device time and a uniform
/// draw in [0, 1), so a test can pin both.
public struct FaultTable: Sendable, Equatable {
    /// The rules, in the order they are tried (first added first), each with its id.
    public private(set) var rules: [FaultRule] = []
    private var nextID: UInt64 = 1

    /// At most this many rules at once.
    public static let capacity = 1_000

    /// An empty table.
    public init() {}

    /// Adds `rule` (its id is given here) and returns the id; nil when the table is full.
    public mutating func add(_ rule: FaultRule) -> UInt64? {
        guard rules.count < Self.capacity else { return nil }
        var rule = rule
        rule.id = nextID
        rule.applied = 0
        nextID += 1
        rules.append(rule)
        return rule.id
    }

    /// Removes rule `id`; false when there is none.
    public mutating func remove(_ id: UInt64) -> Bool {
        guard let index = rules.firstIndex(where: { $0.id == id }) else { return false }
        rules.remove(at: index)
        return true
    }

    /// Removes every rule.
    public mutating func removeAll() {
        rules = []
    }

    /// Makes `rules` (ids given elsewhere: a cluster's, shared by its receivers) the table,
    /// in order. A rule already here keeps how often it applied and how many times it has
    /// left; at most `capacity` are taken.
    public mutating func replace(with rules: [FaultRule]) {
        let current = Dictionary(self.rules.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.rules = rules.prefix(Self.capacity).map { rule in
            guard let kept = current[rule.id] else { return rule }
            var rule = rule
            rule.applied = kept.applied
            rule.remaining = kept.remaining
            return rule
        }
        nextID = max(nextID, (self.rules.map(\.id).max() ?? 0) &+ 1)
    }

    /// The rule that applies to `request` at `now`, if any, counted as applied. `draw` is
    /// uniform in [0, 1): a rule with a fraction applies when the draw falls under it.
    public mutating func decide(_ request: FaultRequest, now: DeviceInstant, draw: Double) -> FaultRule? {
        guard let rule = match(request, now: now, draw: draw) else { return nil }
        return consume(rule.id)
    }

    /// The first rule that would apply to `request` at `now`, not counted.
    public func match(_ request: FaultRequest, now: DeviceInstant, draw: Double) -> FaultRule? {
        guard !rules.isEmpty else { return nil }
        return rules.first { rule in
            guard !rule.isSpent, rule.match.matches(request) else { return false }
            if let from = rule.from, now < from { return false }
            if let until = rule.until, now >= until { return false }
            if let fraction = rule.fraction, draw >= fraction { return false }
            return true
        }
    }

    /// Counts rule `id` as applied once more; returns it, or nil when it is gone or spent.
    public mutating func consume(_ id: UInt64) -> FaultRule? {
        guard let index = rules.firstIndex(where: { $0.id == id }), !rules[index].isSpent else { return nil }
        if let remaining = rules[index].remaining { rules[index].remaining = remaining - 1 }
        rules[index].applied += 1
        return rules[index]
    }
}
