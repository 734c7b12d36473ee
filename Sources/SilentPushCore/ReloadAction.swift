/// What the reload policy decided.
public enum ReloadAction: Sendable, Equatable {
    /// `push` reloads `target` at `at`: a wake of the extension's kind, which the `coalesced`
    /// pushes it replaced ride. `used` of `budget` reloads in the last 24 hours, this one
    /// counted (nil budget: none, and none counted).
    case reload(push: UInt64, target: ReloadPolicy.Target, at: DeviceInstant, coalesced: Int, used: Int, budget: Int?)
    /// `push` waits, for `why`.
    case wait(push: UInt64, why: WaitReason<DeviceInstant>)
    /// `by` replaced `held`, which rides its reload; `atAPNs`: in APNs's storage for an
    /// offline device, not on the device.
    case replaced(held: UInt64, by: UInt64, atAPNs: Bool)
    /// `push`, and the `coalesced` pushes it replaced, expired at APNs before the device came
    /// back online.
    case expired(push: UInt64, coalesced: Int)
    /// The app was deleted while `push` (and the `coalesced` pushes it replaced) waited: it
    /// never reloads the deleted install.
    case appDeleted(push: UInt64, coalesced: Int)
}
