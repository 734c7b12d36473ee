/// `apns-priority`: 10 (immediately), 5 (power considerations), 1 (prioritise power).
public enum APNsPriority: Int, Sendable, Comparable, CaseIterable {
    /// 1: the device's power comes before everything, and the device is not woken for it.
    case low = 1
    /// 5: sent as the device's power considerations allow.
    case normal = 5
    /// 10: sent immediately (the default).
    case high = 10

    public static func < (lhs: APNsPriority, rhs: APNsPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}
