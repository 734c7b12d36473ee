import Synchronization

extension Atomic where Value == UInt64 {
    /// Raises the value to `floor` when it is below it; never lowers it.
    func raise(to floor: UInt64) {
        var current = load(ordering: .relaxed)
        while current < floor {
            let (exchanged, original) = compareExchange(expected: current, desired: floor, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }
}
