/// What is left of a process group, as `Platform.processGroupState` reads it.
package enum ProcessGroupState: Equatable, Sendable {
    /// No process has the group's id: its id may already be another group's.
    case empty
    /// Every member has exited and waits to be reaped (a zombie holds the id, so signalling
    /// the group is still safe): what it ran has ended, whenever init reaps it.
    case exited
    /// A member still runs: `member` when one was seen (nil: procfs could not tell).
    case running(member: Int32?)
}
