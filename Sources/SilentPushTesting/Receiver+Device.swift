import SilentPushCore
import SilentPushReceiver
import SilentPushStore

extension Receiver {
    /// Moves the manual device clock forward (see `DeviceRuntime.advance(by:)`): timers in
    /// the span fire at their exact device time, in order.
    public func advanceClock(by duration: Duration) async throws {
        try await device.advance(by: duration)
    }

    /// Waits until no fetch is running (at most `timeout` of real time per fetch) and every
    /// record is committed: then fates and wakes can be asserted.
    public func settle(timeout: Duration = .seconds(10)) async {
        await device.settle(timeout: timeout)
    }

    /// The fate of the push with this `apns-id`, once committed; nil if unknown.
    public func fate(of apnsID: String) throws -> PushFate? {
        try device.store.push(apnsID: apnsID)?.fate
    }

    /// Waits (on the system clock, checking every 10 ms) until the push's fate satisfies
    /// `condition`, for at most `timeout`; returns the last fate seen.
    @discardableResult
    public func waitForFate(
        of apnsID: String, timeout: Duration = .seconds(10), until condition: (PushFate?) -> Bool
    ) async throws -> PushFate? {
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: timeout)
        while true {
            let fate = try fate(of: apnsID)
            if condition(fate) || clock.now >= end { return fate }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Wakes, oldest first, for a device and/or topic.
    public func wakes(deviceToken: String? = nil, topic: String? = nil) throws -> [WakeRecord] {
        try device.store.wakes(deviceToken: deviceToken, topic: topic, limit: 1000).reversed()
    }

    /// The `apns-id`s coalesced into wake `wakeID`, oldest first.
    public func coalesced(into wakeID: UInt64) throws -> [String] {
        try device.store.coalescedAPNsIDs(wakeID: wakeID)
    }

    /// Sets a device's state (force-quit, Background App Refresh, Low Power Mode, budget).
    public func setDeviceState(_ state: DeviceState, for deviceToken: String = SamplePush.deviceToken) async throws {
        try await device.setDeviceState(state, for: deviceToken)
    }
}
