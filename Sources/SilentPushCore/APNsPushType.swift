/// `apns-push-type` values, with the topic each one requires.
public enum APNsPushType: String, Sendable, CaseIterable {
    /// Shows an alert, plays a sound or sets a badge.
    case alert
    /// A silent push that wakes the app in the background, with no user interaction.
    case background
    /// Updates a watchOS app's complication (topic `.complication`).
    case complication
    /// Updates the state of the app's controls (topic `.push-type.controls`).
    case controls
    /// Tells a File Provider extension of changes (topic `.pushkit.fileprovider`).
    case fileprovider
    /// Starts, updates or ends a Live Activity (topic `.push-type.liveactivity`).
    case liveactivity
    /// Asks a Location Push Service extension for the device's location (topic `.location-query`).
    case location
    /// Tells a managed device to contact its MDM server (topic: the MDM push certificate's topic).
    case mdm
    /// Updates the app's Push to Talk service (topic `.voip-ptt`).
    case pushtotalk
    /// An incoming VoIP call, for PushKit (topic `.voip`).
    case voip
    /// Reloads the app's widgets (topic `.push-type.widgets`).
    case widgets

    /// The suffix the topic must end with (after the bundle id); nil: the plain bundle id.
    public var topicSuffix: String? { staticSuffix.map { "\($0)" } }

    private var staticSuffix: StaticString? {
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

    /// The app a push of this type to `topic` is for: its bundle id, the topic without this
    /// type's suffix (a topic that does not end with it is taken as it is).
    package func bundleID(ofTopic topic: String) -> String {
        guard let suffix = topicSuffix, topic.hasSuffix(suffix) else { return topic }
        return String(topic.dropLast(suffix.count))
    }

    /// The app `topic` is of: its bundle id, without the suffix of whichever type it carries.
    package static func bundleID(ofAnyTopic topic: String) -> String {
        suffixedType(of: topic)?.bundleID(ofTopic: topic) ?? topic
    }

    /// The largest payload APNs takes for this type.
    public var maximumPayloadSize: Int { self == .voip ? Self.largestPayloadSize : 4096 }

    /// The largest payload APNs takes for any type (VoIP's).
    public static let largestPayloadSize = 5120

    /// Whether `topic` fits this type: its suffix when it has one; otherwise a topic that
    /// carries no other type's suffix (an alert to `com.example.app.voip` is refused).
    /// MDM topics (the MDM push certificate's) are not checked.
    public func accepts(topic: String) -> Bool {
        if self == .mdm { return true }
        // Byte-wise: this runs on every request, and `String.hasSuffix` compares Unicode-aware.
        return topic.withUTF8Bytes { topic in
            if let suffix = staticSuffix { return topic.count > suffix.utf8CodeUnitCount && Self.ends(topic, with: suffix) }
            return Self.suffixedType(of: topic) == nil
        }
    }

    /// The type whose suffix `topic` ends with, if any.
    static func suffixedType(of topic: String) -> APNsPushType? {
        topic.withUTF8Bytes { suffixedType(of: $0) }
    }

    private static func suffixedType(of topic: UnsafeBufferPointer<UInt8>) -> APNsPushType? {
        for type in allCases {
            if let suffix = type.staticSuffix, ends(topic, with: suffix) { return type }
        }
        return nil
    }

    private static func ends(_ text: UnsafeBufferPointer<UInt8>, with suffix: StaticString) -> Bool {
        let count = suffix.utf8CodeUnitCount
        guard text.count >= count else { return false }
        let start = text.count - count
        for index in 0..<count where text[start + index] != suffix.utf8Start[index] { return false }
        return true
    }
}
