import SilentPushCore

/// Every push a ``PushQuery`` matches (its `limit` aside), newest first, a page at a time,
/// each row read once through the `push_fates` view: a million pushes cost a million row reads.
package struct PushExport: Sendable {
    private let store: PushStore
    private let query: PushQuery
    private var before: Int64?
    private var finished = false

    /// An export of what `query` matches.
    package init(_ store: PushStore, query: PushQuery) {
        self.store = store
        self.query = query
        before = query.before.map { Int64(bitPattern: min($0, UInt64(Int64.max))) }
    }

    /// The next matches, up to `pageSize`; nil once every match is read.
    package mutating func next(pageSize: Int) async throws -> [PushRecord]? {
        guard !finished else { return nil }
        var page = query
        page.before = before.map { UInt64(bitPattern: $0) }
        page.limit = pageSize
        let matches = try await store.pushes(page)
        if matches.count < pageSize { finished = true }
        guard let last = matches.last else { return nil }
        before = Int64(bitPattern: last.id)
        return matches
    }
}
