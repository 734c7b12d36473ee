/// What an app declares in its Info.plist for background work: the task identifiers it may
/// submit (`BGTaskSchedulerPermittedIdentifiers`) and its background modes
/// (`UIBackgroundModes`).
public struct AppDeclaration: Sendable, Equatable {
    /// Identifiers the app may submit. An entry ending in `.*` permits every continued
    /// task identifier under that prefix, as iOS 26 allows for `BGContinuedProcessingTaskRequest`.
    public var permittedTaskIdentifiers: [String]
    /// The app's background modes.
    public var backgroundModes: Set<BackgroundMode>
    /// Whether the app has the broadcast capability (on unless turned off): without it, its
    /// channel and broadcast requests get `FeatureNotEnabled`.
    public var broadcast = true
    /// Whether the app has `NSSupportsLiveActivitiesFrequentUpdates`: its Live Activities
    /// get the larger hourly budget of priority-10 updates.
    public var frequentUpdates = false

    /// A declaration.
    public init(permittedTaskIdentifiers: [String], backgroundModes: Set<BackgroundMode>) {
        self.permittedTaskIdentifiers = permittedTaskIdentifiers
        self.backgroundModes = backgroundModes
    }

    /// Whether a request of `kind` with `identifier` is permitted: the identifier declared,
    /// and the kind's background mode.
    public func permits(_ identifier: String, kind: BackgroundTaskKind) -> Bool {
        // Only the system asks for a relaunch.
        if kind == .urlSession { return false }
        if let mode = kind.requiredMode, !backgroundModes.contains(mode) { return false }
        return permittedTaskIdentifiers.contains { entry in
            if entry == identifier { return true }
            guard kind == .continued, entry.hasSuffix(".*") else { return false }
            let prefix = entry.dropLast(1)  // keeps the dot
            return identifier.count > prefix.count && identifier.hasPrefix(prefix)
        }
    }
}
