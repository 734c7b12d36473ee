extension WakePolicy {
    /// The apps the policy has seen, each at a dense index that never changes, found
    /// through an open-addressing table of those indices. Apps are only ever added.
    ///
    /// Each app is stored once, where a `Dictionary` from app to index would keep a second
    /// copy of every key (in a table sized for twice as many: docs/benchmarks.md).
    @usableFromInline struct AppTable: Sendable {
        @usableFromInline var apps: [App] = []
        /// Index + 1 of the app whose probe sequence passes here; 0: empty. A power of
        /// two in size, kept at most half full so probe sequences stay short.
        @usableFromInline var buckets = [Int32](repeating: 0, count: 16)

        @inlinable init() {}

        @inlinable var count: Int { apps.count }

        @inlinable subscript(index: Int) -> App { apps[index] }

        /// The index of `app`, if it was added.
        @inlinable func index(of app: App) -> Int? { find(app).index }

        /// The index of `app`, adding it first if it is new.
        @inlinable mutating func insert(_ app: App) -> (index: Int, inserted: Bool) {
            let (bucket, found) = find(app)
            if let found { return (found, false) }
            apps.append(app)
            buckets[bucket] = Int32(apps.count)
            if apps.count * 2 > buckets.count { grow() }
            return (apps.count - 1, true)
        }

        /// Walks `app`'s probe sequence: its index if it is there, else the empty bucket
        /// where it would go.
        @inlinable func find(_ app: App) -> (bucket: Int, index: Int?) {
            let mask = buckets.count - 1
            var bucket = app.hashValue & mask
            while true {
                let entry = Int(buckets[bucket])
                if entry == 0 { return (bucket, nil) }
                if apps[entry - 1] == app { return (bucket, entry - 1) }
                bucket = (bucket + 1) & mask
            }
        }

        @inlinable mutating func grow() {
            buckets = [Int32](repeating: 0, count: buckets.count * 2)
            let mask = buckets.count - 1
            for (index, app) in apps.enumerated() {
                var bucket = app.hashValue & mask
                while buckets[bucket] != 0 { bucket = (bucket + 1) & mask }
                buckets[bucket] = Int32(index + 1)
            }
        }
    }
}
