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
