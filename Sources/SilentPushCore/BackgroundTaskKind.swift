/// The kinds of BackgroundTasks request an app submits (raw values: the admin API's `kind`).
public enum BackgroundTaskKind: String, Sendable, CaseIterable {
    /// `BGAppRefreshTaskRequest`: a short refresh (about 30 s), needs the `fetch` background mode.
    case refresh
    /// `BGProcessingTaskRequest`: minutes of work while the device is idle, needs the
    /// `processing` background mode.
    case processing
    /// `BGContinuedProcessingTaskRequest` (iOS 26): work the user started in the foreground,
    /// carried on in the background with progress shown.
    case continued
    /// Never submitted by the app: the system relaunches it for a background `URLSession`
    /// whose transfers have all ended (`handleEventsForBackgroundURLSession`), with the
    /// session's identifier as the task's. Its handler calls the stored completion handler
    /// (`setTaskCompleted`) within `WakeSettings.relaunchTime`.
    case urlSession

    /// The background mode the app must declare for this kind; nil: none (a continued task
    /// needs only its identifier declared).
    public var requiredMode: BackgroundMode? {
        switch self {
        case .refresh: .fetch
        case .processing: .processing
        case .continued, .urlSession: nil
        }
    }
}
