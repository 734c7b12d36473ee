/// One row a read gave back, whichever engine read it. A column is read by name or position
/// as the type asked for; a missing column, NULL where a value is expected, or a value of
/// another kind gives the type's fallback.
package struct StoreRow: Sendable {
    let columns: StoreColumns
    let values: [StoreValue]

    package init(columns: StoreColumns, values: [StoreValue]) {
        self.columns = columns
        self.values = values
    }

    package subscript<Value: StoreValueConvertible>(_ column: String) -> Value {
        guard let position = columns.index[column] else { return Value.fallback }
        return self[position]
    }

    package subscript<Value: StoreValueConvertible>(_ position: Int) -> Value {
        guard values.indices.contains(position) else { return Value.fallback }
        return Value.converted(from: values[position]) ?? Value.fallback
    }

    /// Whether the result has a column `name`.
    package func hasColumn(_ name: String) -> Bool { columns.index[name] != nil }
}
