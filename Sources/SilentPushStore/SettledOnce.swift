import Synchronization

/// Settles a promise once, whichever of its answer and its timer comes first.
final class SettledOnce: Sendable {
    private let settled = Atomic<Bool>(false)

    /// True the first time only.
    func settle() -> Bool {
        !settled.exchange(true, ordering: .acquiringAndReleasing)
    }
}
