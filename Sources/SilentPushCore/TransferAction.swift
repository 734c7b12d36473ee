/// What the transfer policy decided.
public enum TransferAction: Sendable, Equatable {
    /// Transfer `id` is now in `phase` (record it).
    case phase(id: UInt64, TransferPolicy.Phase)
    /// Run try `attempt` of transfer `id` against its origin, and report how it ended.
    case start(id: UInt64, attempt: Int)
    /// Stop transfer `id`'s running try (its bytes so far are kept for the next).
    case interrupt(id: UInt64)
    /// Every transfer of `session` ended: relaunch the app for it with these transfers' files.
    case relaunch(app: TransferPolicy.App, session: String, transfers: [UInt64])
    /// Done transfer `id` will never be handed to the app (a force-quit cancelled its
    /// session): its file goes.
    case abandon(id: UInt64)
}
