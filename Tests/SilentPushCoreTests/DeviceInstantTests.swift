import SilentPushCore
import Testing

/// Device-clock arithmetic holds at the ends of its range instead of trapping or wrapping.
@Suite struct DeviceInstantTests {
    static let now = DeviceInstant(secondsSinceEpoch: 1_767_225_600)

    @Test func arithmeticSaturatesAtBothEnds() {
        #expect(DeviceInstant.distantFuture.advanced(by: .seconds(1)) == .distantFuture)
        #expect(Self.now.advanced(by: .seconds(Int64.max)) == .distantFuture)
        #expect(DeviceInstant(nanosecondsSinceEpoch: -1).advanced(by: .seconds(Int64.min)).nanosecondsSinceEpoch == Int64.min)
        #expect(DeviceInstant(secondsSinceEpoch: Int64.max) == .distantFuture)
        #expect(DeviceInstant(secondsSinceEpoch: Int64.min).nanosecondsSinceEpoch == Int64.min)
        #expect(DeviceInstant(millisecondsSinceEpoch: Int64.max) == .distantFuture)
        let past = DeviceInstant(nanosecondsSinceEpoch: Int64.min)
        #expect(past.duration(to: .distantFuture) == .nanoseconds(Int64.max))
        #expect(DeviceInstant.distantFuture.duration(to: past) == .nanoseconds(Int64.min))
        #expect(Duration.seconds(Int64.max).nanosecondCount == Int64.max)
        #expect(Duration.seconds(Int64.min).nanosecondCount == Int64.min)
        #expect(Duration.milliseconds(1500).nanosecondCount == 1_500_000_000)
    }

    @Test func anExpirationInRangeBecomesATimeToLiveOnTheDeviceClock() {
        let device = DeviceInstant(secondsSinceEpoch: 1_000)  // a manual clock far behind the system's
        let expiry = DeviceInstant.expiry(ofAPNsExpiration: 1_767_225_600 + 3600, systemNow: Self.now, deviceNow: device)
        #expect(expiry == device.advanced(by: .seconds(3600)))
        #expect(DeviceInstant.expiry(ofAPNsExpiration: 0, systemNow: Self.now, deviceNow: device) == device)
        #expect(DeviceInstant.expiry(ofAPNsExpiration: 1, systemNow: Self.now, deviceNow: device) == device)  // already past
        #expect(DeviceInstant.expiry(ofAPNsExpiration: nil, systemNow: Self.now, deviceNow: device) == nil)
    }

    /// Milliseconds sent by mistake, the year 9999, `Int64.max`: beyond 2262, far future.
    @Test(arguments: [1_767_225_600_000, 253_402_300_799, 9_223_372_037, Int64.max] as [Int64])
    func anExpirationBeyondTheDevicesRangeIsFarFuture(seconds: Int64) {
        #expect(DeviceInstant.expiry(ofAPNsExpiration: seconds, systemNow: Self.now, deviceNow: Self.now) == nil)
    }

    /// Just inside the range, but a manual clock ahead of the system's would pass its end.
    @Test func aTimeToLivePastTheEndFromAManualClockIsFarFuture() {
        let ahead = DeviceInstant(secondsSinceEpoch: 9_000_000_000)
        #expect(DeviceInstant.expiry(ofAPNsExpiration: 9_223_000_000, systemNow: Self.now, deviceNow: ahead) == nil)
    }
}
