import SilentPushCore

/// A task request the device refused: Apple's error and, for `immediateRunIneligible`, what
/// kept the continued task from starting at once (the admin API's 409 names it). The Swift
/// API throws only `error`, Apple's code.
package struct TaskRefusal: Error, Sendable, Equatable {
    package var error: TaskSubmitError
    /// What held the task when it was refused; nil for the other errors.
    package var why: WaitReason<DeviceInstant>?
}
