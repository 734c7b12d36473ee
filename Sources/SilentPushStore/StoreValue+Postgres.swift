import Foundation
import NIOCore
import PostgresNIO
import Synchronization

extension StoreValue {
    /// A value PostgreSQL sent: whole numbers (and booleans, as 0 and 1) as integers, reals,
    /// bytes, and anything else as its text.
    init(_ cell: PostgresCell) throws {
        guard cell.bytes != nil else {
            self = .null
            return
        }
        switch cell.dataType {
        case .int2, .int4, .int8: self = .integer(try cell.decode(Int64.self))
        case .bool: self = .integer(try cell.decode(Bool.self) ? 1 : 0)
        case .float4, .float8: self = .real(try cell.decode(Double.self))
        case .numeric:
            let number = try cell.decode(Decimal.self)
            if let whole = Int64(exactly: NSDecimalNumber(decimal: number).doubleValue) {
                self = .integer(whole)
            } else {
                self = .real(NSDecimalNumber(decimal: number).doubleValue)
            }
        case .bytea: self = .blob(Array(buffer: try cell.decode(ByteBuffer.self)))
        default: self = .text(try cell.decode(String.self))
        }
    }
}
