import SilentPushCore

/// Every push a ``PushQuery`` matches (its `limit` aside), newest first, a page at a time,
/// each row read once through the `push_fates` view: a million pushes cost a million row reads.
package struct PushExport: Sendable {
    private let store: PushStore
    private let query: PushQuery
    private var position: Position

    /// Where the export stands: reading pages older than `before` (nil: from the newest),
    /// or done once a page came back short.
    private enum Position {
        case reading(before: Int64?)
        case finished
    }

    /// An export of what `query` matches.
    package init(_ store: PushStore, query: PushQuery) {
        self.store = store
        self.query = query
        position = .reading(before: query.before.map { Int64(bitPattern: min($0, UInt64(Int64.max))) })
    }

    /// The next matches, up to `pageSize`; nil once every match is read.
    package mutating func next(pageSize: Int) async throws -> [PushRecord]? {
        guard case .reading(let before) = position else { return nil }
        var page = query
        page.before = before.map { UInt64(bitPattern: $0) }
        page.limit = pageSize
        let matches = try await store.pushes(page)
        guard let last = matches.last else {
            position = .finished
            return nil
        }
        position = matches.count < pageSize ? .finished : .reading(before: Int64(bitPattern: last.id))
        return matches
    }
}
