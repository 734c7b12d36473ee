/// Why the transport refused a request before it was complete.
package enum H2RequestProblem: Sendable, Equatable {
    /// The body grew past the cap while it streamed in; what came before was discarded.
    case bodyTooLarge(limit: Int)
    /// The header list grew past SETTINGS_MAX_HEADER_LIST_SIZE.
    case headerListTooLarge(limit: Int)
}
