import Foundation

/// A value bound into a statement or read out of a row, as either engine holds it: whole
/// numbers (ids as `UInt64` bit patterns, times in milliseconds, flags 0 and 1), reals,
/// text, bytes and NULL.
package enum StoreValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// A Swift value a statement binds or a row's column gives back.
package protocol StoreValueConvertible {
    /// The value as the engines store it.
    var storeValue: StoreValue { get }
    /// What `stored` holds as this type; nil when it holds another kind of value.
    static func converted(from stored: StoreValue) -> Self?
    /// What a column read as this type gives when it holds NULL or another kind of value (a
    /// store edited by hand): a value, never a trap.
    static var fallback: Self { get }
}

extension Int64: StoreValueConvertible {
    package var storeValue: StoreValue { .integer(self) }
    package static func converted(from stored: StoreValue) -> Int64? {
        switch stored {
        case .integer(let value): value
        case .real(let value): Int64(exactly: value)
        default: nil
        }
    }
    package static var fallback: Int64 { 0 }
}

extension Int: StoreValueConvertible {
    package var storeValue: StoreValue { .integer(Int64(self)) }
    package static func converted(from stored: StoreValue) -> Int? { Int64.converted(from: stored).flatMap { Int(exactly: $0) } }
    package static var fallback: Int { 0 }
}

extension Bool: StoreValueConvertible {
    package var storeValue: StoreValue { .integer(self ? 1 : 0) }
    package static func converted(from stored: StoreValue) -> Bool? { Int64.converted(from: stored).map { $0 != 0 } }
    package static var fallback: Bool { false }
}

extension Double: StoreValueConvertible {
    package var storeValue: StoreValue { .real(self) }
    package static func converted(from stored: StoreValue) -> Double? {
        switch stored {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }
    package static var fallback: Double { 0 }
}

extension String: StoreValueConvertible {
    package var storeValue: StoreValue { .text(self) }
    package static func converted(from stored: StoreValue) -> String? {
        switch stored {
        case .text(let value): value
        case .blob(let bytes): String(validating: bytes, as: UTF8.self)
        default: nil
        }
    }
    package static var fallback: String { "" }
}

extension Array: StoreValueConvertible where Element == UInt8 {
    package var storeValue: StoreValue { .blob(self) }
    package static func converted(from stored: StoreValue) -> [UInt8]? {
        switch stored {
        case .blob(let bytes): bytes
        case .text(let text): Array(text.utf8)
        default: nil
        }
    }
    package static var fallback: [UInt8] { [] }
}

extension Data: StoreValueConvertible {
    package var storeValue: StoreValue { .blob(Array(self)) }
    package static func converted(from stored: StoreValue) -> Data? { [UInt8].converted(from: stored).map { Data($0) } }
    package static var fallback: Data { Data() }
}

extension Optional: StoreValueConvertible where Wrapped: StoreValueConvertible {
    package var storeValue: StoreValue { map { $0.storeValue } ?? .null }
    /// NULL is nil; a value of another kind is nil too.
    package static func converted(from stored: StoreValue) -> Wrapped?? {
        if case .null = stored { return .some(nil) }
        return .some(Wrapped.converted(from: stored))
    }
    package static var fallback: Wrapped? { nil }
}

/// The names of a result's columns, shared by its rows.
package final class StoreColumns: Sendable {
    let index: [String: Int]

    package init(_ names: [String]) {
        var index: [String: Int] = [:]
        for (position, name) in names.enumerated() where index[name] == nil { index[name] = position }
        self.index = index
    }
}

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

/// A statement with SQLite's placeholders (`?`, `?N`) and the values they bind.
package struct StoreStatement: Sendable {
    package var sql: String
    package var arguments: [StoreValue]

    package init(_ sql: String, _ arguments: [any StoreValueConvertible] = []) {
        self.sql = sql
        // A closure, not `\.storeValue`: a key path through an existential is instantiated
        // at run time on every call, and this runs for every row written.
        self.arguments = arguments.map { $0.storeValue }
    }
}
