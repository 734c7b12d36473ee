/// What a receiver found in its store at start-up and carries on with: the pushes still
/// waiting in their apps' slots, the devices the store knows, the task requests still
/// pending, the wakes a stop cut short, the Live Activities shown, and the Live Activity
/// pushes that waited and are not kept.
public struct ResumedState: Sendable, Equatable {
    /// Pushes put back in their apps' slots, waiting as they were.
    public var pendingPushes = 0
    /// Devices with a recorded state, wake or pending push.
    public var devices = 0
    /// Background task requests still pending.
    public var taskRequests = 0
    /// Wakes that were running when the last run stopped (recorded `failed`, `interrupted`).
    public var interruptedWakes = 0
    /// Background transfers not yet ended, started again.
    public var transfers = 0
    /// Live Activities not yet dismissed, put back with their tokens, channels and timers.
    public var liveActivities = 0
    /// Live Activity pushes that waited (held for their budget or an offline device) and are
    /// dropped, `receiverRestarted`: what waited is not kept across a restart.
    public var droppedActivityPushes = 0

    /// Nothing resumed: every count 0.
    public init() {}

    /// Whether the store held nothing to carry on with.
    public var isEmpty: Bool { self == ResumedState() }

    /// "3 pending pushes, 2 devices": the non-zero counts, for the start-up line.
    public var summary: String {
        func count(_ value: Int, _ one: String, _ many: String) -> String? {
            value == 0 ? nil : "\(value) \(value == 1 ? one : many)"
        }
        let parts = [
            count(pendingPushes, "pending push", "pending pushes"), count(devices, "device", "devices"),
            count(taskRequests, "pending task request", "pending task requests"), count(interruptedWakes, "interrupted wake", "interrupted wakes"),
            count(transfers, "background transfer", "background transfers"), count(liveActivities, "Live Activity", "Live Activities"),
            count(droppedActivityPushes, "waiting Live Activity push dropped", "waiting Live Activity pushes dropped")
                .map { $0 + " (not kept across a restart)" },
        ].compactMap { $0 }
        return parts.isEmpty ? "nothing" : parts.joined(separator: ", ")
    }
}
