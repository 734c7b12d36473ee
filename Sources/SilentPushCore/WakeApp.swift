/// An app on a device, the unit of the wake policy: a device and a topic.
public protocol WakeApp: Hashable, Sendable {
    /// What names a device: its token, or a compact id for it.
    associatedtype Device: Hashable & Sendable
    /// The device the app is on (its device token, or a compact id for it).
    var device: Device { get }
}
