/// A `UIBackgroundModes` entry (raw values: Info.plist's strings).
public enum BackgroundMode: String, Sendable, CaseIterable {
    /// Background fetch: app refresh tasks.
    case fetch
    /// Background processing tasks.
    case processing
    /// Silent (background) pushes.
    case remoteNotification = "remote-notification"
}
