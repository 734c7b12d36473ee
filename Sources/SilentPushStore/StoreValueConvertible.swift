import Foundation

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
