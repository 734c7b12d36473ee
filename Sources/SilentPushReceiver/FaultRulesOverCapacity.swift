import SilentPushCore

/// More fault rules came with the configuration than the table holds
/// (`FaultTable.capacity`): the receiver refuses to start rather than drop the rest.
package struct FaultRulesOverCapacity: Error, CustomStringConvertible, Equatable {
    /// How many were given.
    package var count: Int

    package var description: String {
        "\(count) fault rules: at most \(FaultTable.capacity) can be in force at once (faults)"
    }
}
