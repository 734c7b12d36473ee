/// What holds the records: SQLite (a file or memory) or PostgreSQL. `PushStore` is the one
/// face both show; the reads, the retention and the fate mapping are written once above
/// this, in statements with SQLite's placeholders that both engines run.
protocol StoreEngine: StoreReader {
    /// Starts draining `writer`'s queue on the engine's one writer: batch after batch, each
    /// committed in one transaction, until `nextBatch` says the drain ends. The writer's
    /// phase sees to it that no two drains run at once.
    func startDrain(of writer: StoreWriter)

    /// Runs `statements` in order in one transaction beside the group commit; returns the
    /// rows each changed.
    func execute(_ statements: [StoreStatement]) async throws -> [Int]

    /// Bytes the records take on disk.
    func size() async throws -> Int

    /// Gives up to `pages` of free space back to the file system; returns what is left to
    /// give back (0 for an engine that does it itself).
    func vacuumIncrementally(pages: Int) async throws -> Int

    /// Moves what the engine's log holds into its tables, when the engine keeps one of its
    /// own (SQLite's WAL).
    func checkpoint() async

    /// Closes the engine once the writer has stopped taking writes and its last drain ended.
    func close() async throws

    /// Gives up on a store that no longer answers: what waits on it fails now, and so does
    /// what comes after (`PushStore.abandon()`).
    func abandon()

    /// Whether `abandon()` was called.
    var wasAbandoned: Bool { get }
}
