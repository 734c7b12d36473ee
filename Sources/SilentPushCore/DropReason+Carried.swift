extension DropReason {
    /// Whether the push is dropped for what it carries (its push type, its payload), before
    /// the device's state or an activity has a say: such a push never reaches the wake
    /// policy, yet its device is one the receiver was pushed to.
    package var isForWhatThePushCarried: Bool {
        switch self {
        case .backgroundWithoutContentAvailable, .noContentAvailable, .pushTypeNeverWakes, .liveActivityPayload, .noContentChanged: true
        case .forceQuit, .backgroundAppRefreshOff, .appDeleted, .liveActivity: false
        }
    }

    /// Every reason, each with every value it carries.
    package static let every: [DropReason] =
        [.forceQuit, .backgroundAppRefreshOff, .appDeleted, .backgroundWithoutContentAvailable, .noContentAvailable]
        + APNsPushType.allCases.map(DropReason.pushTypeNeverWakes) + LiveActivityPayloadProblem.allCases.map(DropReason.liveActivityPayload)
        + LiveActivityIgnored.allCases.map(DropReason.liveActivity) + APNsPushType.allCases.map(DropReason.noContentChanged)

    /// The reasons of `every` that are `isForWhatThePushCarried`: what a store selects its
    /// drops by (each one's `description` is the stored text).
    package static let forWhatThePushCarried = every.filter(\.isForWhatThePushCarried)
}
