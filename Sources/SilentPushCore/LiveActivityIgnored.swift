/// Why the device did not use a Live Activity push or broadcast. The raw value is what a
/// push's fate says.
public enum LiveActivityIgnored: String, Error, Sendable, CaseIterable {
    /// "the system ignores an ActivityKit push notification if it arrives after the Live Activity ended."
    case activityEnded
    /// "If this is older than a previous update or push payload, the system ignores this update."
    case olderTimestamp
    /// A `start` sent to an activity's update token.
    case startToUpdateToken
    /// An `update` or `end` sent to the push-to-start token.
    case notAStart
    /// "You can't use broadcast push notifications to start a Live Activity."
    case broadcastStart
    /// No activity or push-to-start token of this device has the push's token.
    case unknownToken
    /// A start naming a channel that does not exist: "the Live Activity fails to start".
    case unknownChannel
    /// The device was offline and APNs kept nothing for it: a broadcast on a channel that
    /// stores no message, or a push with `apns-expiration: 0`.
    case offlineNotStored
    /// APNs kept the push for the offline device until its expiration (or APNs' storage
    /// limit), which passed before the device came back.
    case offlineExpired
    /// The receiver restarted while the push waited (for budget, its opportunity, or an
    /// offline device): what waited is not kept across a restart.
    case receiverRestarted
    /// The app was deleted (a reinstall) while the push waited for its activity or its
    /// offline device: its activities and tokens went with it.
    case appDeleted

    /// What it means for the push, and what to change, in words.
    public var advice: String {
        switch self {
        case .activityEnded: "the activity had ended; the system ignores its pushes after the end"
        case .olderTimestamp: "its aps.timestamp is older than what the activity shows, or than an update it holds to show; send a newer timestamp"
        case .startToUpdateToken: "a start sent to an activity's update token; send starts to the app's push-to-start token"
        case .notAStart: "an update or end sent to the push-to-start token; send it to the activity's update token"
        case .broadcastStart: "a broadcast cannot start a Live Activity; start it with a push to the push-to-start token"
        case .unknownToken:
            "no activity of this app on this device, nor its push-to-start token, has this token (never issued, issued for another app, or its activity is gone)"
        case .unknownChannel: "its input-push-channel is not a channel of the app; create the channel first"
        case .offlineNotStored: "the device was offline and APNs kept nothing for it"
        case .offlineExpired: "APNs kept it for the offline device until its expiration, which passed before the device came back"
        case .receiverRestarted: "the receiver restarted while it waited; what waited is not kept across a restart"
        case .appDeleted: "the app was deleted (uninstalled or reinstalled) while it waited; its activities and tokens went with it"
        }
    }
}
