/// The names of a result's columns, shared by its rows.
package final class StoreColumns: Sendable {
    let index: [String: Int]

    package init(_ names: [String]) {
        var index: [String: Int] = [:]
        for (position, name) in names.enumerated() where index[name] == nil { index[name] = position }
        self.index = index
    }
}
