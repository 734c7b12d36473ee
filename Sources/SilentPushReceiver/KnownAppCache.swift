/// The apps the device side has recorded as known in this run (`StoreChange.knowApp`): a
/// cache of what the store's `apps` table holds, so that a push to an app already known
/// writes nothing more. An app is kept as one 64-bit hash of its device and topic as sent
/// (8 bytes, not its two strings); two apps sharing a hash is a chance of about 3 in 10^10
/// among 100,000 apps. Empty at start: an app pushed to first after a restart is recorded
/// again, which changes nothing already there.
package struct KnownAppCache: Sendable, Equatable {
    private var hashes: Set<Int> = []

    /// An empty cache: nothing recorded known yet in this run.
    package init() {}

    /// Notes the app `topic` names on `device`; true when it was not noted before (the
    /// caller records it).
    package mutating func insert(device: String, topic: String) -> Bool {
        var hasher = Hasher()
        hasher.combine(device)
        hasher.combine(topic)
        return hashes.insert(hasher.finalize()).inserted
    }

    /// Forgets every app (a device was forgotten, and its `apps` rows with it: any app of it
    /// pushed to again is recorded again).
    package mutating func removeAll() {
        hashes.removeAll()
    }
}
