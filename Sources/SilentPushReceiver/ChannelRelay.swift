import SilentPushCore

/// How a clustered receiver's channel changes and broadcasts reach the other members before
/// they are answered: a channel created at one receiver is known to every one, and a
/// broadcast sent to one reaches the activities of every receiver's devices.
package protocol ChannelRelay: Sendable {
    /// Every other member takes the channels from the store again after `change` (a few
    /// words, for the log); then `answer` runs. The change is recorded whatever they answer:
    /// a member that could not take it is logged, and takes the channels again when it next
    /// starts listening.
    func channelsChanged(_ change: String, then answer: @escaping @Sendable () -> Void)
    /// Every other member fans `broadcast`, recorded, out to its own devices' activities;
    /// then `completion` runs, with an error when one could not.
    func fanOut(_ broadcast: BroadcastRecord, completion: @escaping @Sendable (Result<Void, any Error>) -> Void)
}
