/// `apns-push-type` values, with the topic each one requires.
public enum APNsPushType: String, Sendable, CaseIterable {
    case alert, background, complication, controls, fileprovider, liveactivity, location, mdm, pushtotalk, voip, widgets

    /// The suffix the topic must end with (after the bundle id); nil: the plain bundle id.
    public var topicSuffix: String? {
        switch self {
        case .alert, .background, .mdm: return nil
        case .voip: return ".voip"
        case .complication: return ".complication"
        case .fileprovider: return ".pushkit.fileprovider"
        case .liveactivity: return ".push-type.liveactivity"
        case .location: return ".location-query"
        case .pushtotalk: return ".voip-ptt"
        case .widgets: return ".push-type.widgets"
        case .controls: return ".push-type.controls"
        }
    }

    /// The largest payload APNs takes for this type.
    public var maximumPayloadSize: Int { self == .voip ? 5120 : 4096 }

    /// Whether `topic` fits this type: its suffix when it has one; otherwise a topic that
    /// carries no other type's suffix (an alert to `com.example.app.voip` is refused).
    /// MDM topics are the device's MDM topic and are not checked.
    public func accepts(topic: String) -> Bool {
        if self == .mdm { return true }
        if let suffix = topicSuffix { return Self.hasSuffix(topic, suffix) && topic.utf8.count > suffix.utf8.count }
        return Self.suffixedType(of: topic) == nil
    }

    /// The type whose suffix `topic` ends with, if any.
    static func suffixedType(of topic: String) -> APNsPushType? {
        suffixed.first { hasSuffix(topic, $0.suffix) }?.type
    }

    private static let suffixed: [(type: APNsPushType, suffix: String)] = allCases.compactMap { type in type.topicSuffix.map { (type, $0) } }

    /// Byte-wise: `String.hasSuffix` compares Unicode-aware and costs far more.
    private static func hasSuffix(_ text: String, _ suffix: String) -> Bool {
        let text = text.utf8
        let suffix = suffix.utf8
        guard text.count >= suffix.count else { return false }
        return text.suffix(suffix.count).elementsEqual(suffix)
    }
}

/// `apns-priority`: 10 (immediately), 5 (power considerations), 1 (prioritise power).
public enum APNsPriority: Int, Sendable, Comparable, CaseIterable {
    case low = 1
    case normal = 5
    case high = 10

    public static func < (lhs: APNsPriority, rhs: APNsPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}
