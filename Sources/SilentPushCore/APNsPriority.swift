/// `apns-priority`: 10 (immediately), 5 (power considerations), 1 (prioritise power).
public enum APNsPriority: Int, Sendable, Comparable, CaseIterable {
    case low = 1
    case normal = 5
    case high = 10

    public static func < (lhs: APNsPriority, rhs: APNsPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}
