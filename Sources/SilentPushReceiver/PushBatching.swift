/// A `PushSink` that can record the pushes of one read from a connection in one commit: the
/// endpoint holds its submissions while it passes on a read's requests.
package protocol PushBatching: Sendable {
    /// Pushes submitted from now until the matching `releaseSubmissions()` may wait for it and
    /// be recorded together. Holds may overlap (one per event loop reading).
    func holdSubmissions()

    /// Ends a `holdSubmissions()`: what it held is recorded now.
    func releaseSubmissions()
}
