/// A strict JSON (RFC 8259) reader over UTF-8 bytes that validates everything it passes
/// but builds only what the caller asks for: an APNs payload needs its `aps` members and
/// top-level scalars, never the rest of the tree.
public struct JSONScanner {
    /// Malformed JSON, with the byte offset where reading stopped.
    public struct Malformed: Error, Equatable, Sendable {
        /// Offset of the offending byte.
        public let offset: Int
    }

    /// Objects and arrays nested more than `maximumDepth` deep: the one at `offset` opens one
    /// level too many.
    public struct TooDeep: Error, Equatable, Sendable {
        /// Offset of the `{` or `[` that opens one level too many.
        public let offset: Int
    }

    /// What the next value is.
    public enum Kind: Equatable, Sendable {
        /// An object (`{`).
        case object
        /// An array (`[`).
        case array
        /// A string.
        case string
        /// A number.
        case number
        /// `true` or `false`.
        case bool
        /// `null`.
        case null
    }

    /// Nesting deeper than this is refused (the payload cap keeps real documents far below).
    public static let maximumDepth = 64

    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var depth = 0

    /// A scanner at the start of `bytes`, which must outlive it.
    public init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The byte offset reading has reached.
    public var offset: Int { position }

    /// The kind of the next value (after whitespace).
    public mutating func peek() throws -> Kind {
        skipWhitespace()
        guard position < bytes.count else { throw malformed() }
        switch bytes[position] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        default: throw malformed()
        }
    }

    /// Reads an object; `member` is called with each key and must consume its value
    /// (with `skipValue` or a `read…` call).
    public mutating func readObject(_ member: (inout JSONScanner, String) throws -> Void) throws {
        try readObjectKeys { scanner, key in try member(&scanner, key.string) }
    }

    /// A member's key as its unescaped UTF-8 bytes, valid only during the member's call:
    /// keys that are only compared (the payload's) need no String each.
    struct Key {
        let bytes: UnsafeBufferPointer<UInt8>

        /// The key as a String.
        var string: String { String(decoding: bytes, as: UTF8.self) }

        static func == (key: Key, text: StaticString) -> Bool {
            text.withUTF8Buffer { $0.elementsEqual(key.bytes) }
        }

        static func ~= (pattern: StaticString, key: Key) -> Bool { key == pattern }
    }

    /// `readObject` with each key as bytes.
    mutating func readObjectKeys(_ member: (inout JSONScanner, Key) throws -> Void) throws {
        try expect(UInt8(ascii: "{"))
        depth += 1
        guard depth <= Self.maximumDepth else { throw TooDeep(offset: position - 1) }
        skipWhitespace()
        if try consumeIf(UInt8(ascii: "}")) {
            depth -= 1
            return
        }
        while true {
            let key = try readStringText()
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            // The value's first byte: a member that only peeks at it (which skips this
            // whitespace too) and leaves it is told apart from one that read it.
            skipWhitespace()
            let before = position
            switch key {
            case .raw(let range): try member(&self, Key(bytes: UnsafeBufferPointer(rebasing: bytes[range])))
            case .decoded(let decoded): try decoded.withUnsafeBufferPointer { key in try member(&self, Key(bytes: key)) }
            }
            if position == before { try skipValue() }  // a member the caller ignored
            skipWhitespace()
            if try consumeIf(UInt8(ascii: ",")) { continue }
            try expect(UInt8(ascii: "}"))
            depth -= 1
            return
        }
    }

    /// Reads an array; `element` is called for each element and must consume it.
    public mutating func readArray(_ element: (inout JSONScanner) throws -> Void) throws {
        try expect(UInt8(ascii: "["))
        depth += 1
        guard depth <= Self.maximumDepth else { throw TooDeep(offset: position - 1) }
        skipWhitespace()
        if try !consumeIf(UInt8(ascii: "]")) {
            while true {
                try element(&self)
                skipWhitespace()
                if try consumeIf(UInt8(ascii: ",")) { continue }
                try expect(UInt8(ascii: "]"))
                break
            }
        }
        depth -= 1
    }

    /// Validates and passes over the next value.
    public mutating func skipValue() throws {
        switch try peek() {
        case .object:
            try readObjectKeys { scanner, _ in try scanner.skipValue() }
        case .array:
            try readArray { try $0.skipValue() }
        case .string: try scanString(into: nil)
        case .number: _ = try readNumberText()
        case .bool: _ = try readBool()
        case .null: try expectWord("null")
        }
    }

    /// Reads a string value, unescaped.
    public mutating func readString() throws -> String {
        switch try readStringText() {
        case .raw(let range): String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        case .decoded(let decoded): String(decoding: decoded, as: UTF8.self)
        }
    }

    /// Where a string's text is: between its quotes when it has no escapes, else decoded.
    private enum StringText {
        case raw(Range<Int>)
        case decoded([UInt8])
    }

    /// Reads a string value (after whitespace), without making a String of it.
    private mutating func readStringText() throws -> StringText {
        skipWhitespace()
        var decoded: [UInt8] = []
        let start = position + 1
        if try scanString(into: &decoded) { return .decoded(decoded) }
        return .raw(start..<(position - 1))
    }

    /// Reads a number's text as written (`1`, `-2.5e3`).
    public mutating func readNumberText() throws -> Substring {
        skipWhitespace()
        let start = position
        _ = try consumeIf(UInt8(ascii: "-"))
        guard position < bytes.count else { throw malformed() }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            guard try consumeDigits() > 0 else { throw malformed() }
        }
        if try consumeIf(UInt8(ascii: ".")) {
            guard try consumeDigits() > 0 else { throw malformed() }
        }
        if position < bytes.count, bytes[position] | 0x20 == UInt8(ascii: "e") {
            position += 1
            if try !consumeIf(UInt8(ascii: "+")) { _ = try consumeIf(UInt8(ascii: "-")) }
            guard try consumeDigits() > 0 else { throw malformed() }
        }
        return Substring(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    }

    /// Reads `true` or `false`.
    public mutating func readBool() throws -> Bool {
        skipWhitespace()
        guard position < bytes.count else { throw malformed() }
        if bytes[position] == UInt8(ascii: "t") {
            try expectWord("true")
            return true
        }
        try expectWord("false")
        return false
    }

    /// Reads a scalar as text: strings unescaped, numbers as written, `true`/`false`,
    /// nil for null. Objects and arrays are skipped and give nil.
    public mutating func readScalarText() throws -> String? {
        switch try peek() {
        case .string: return try readString()
        case .number: return String(try readNumberText())
        case .bool: return try readBool() ? "true" : "false"
        case .null, .object, .array:
            try skipValue()
            return nil
        }
    }

    /// Reads the next value, validated, as the exact text it was written with (a Live
    /// Activity's `content-state` is kept as sent).
    public mutating func readRawValue() throws -> String {
        skipWhitespace()
        let start = position
        try skipValue()
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    }

    /// Throws unless only whitespace is left.
    public mutating func expectEnd() throws {
        skipWhitespace()
        guard position == bytes.count else { throw malformed() }
    }

    // MARK: - Internals

    private func malformed() -> Malformed { Malformed(offset: position) }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private mutating func expect(_ byte: UInt8) throws {
        guard position < bytes.count, bytes[position] == byte else { throw malformed() }
        position += 1
    }

    private mutating func consumeIf(_ byte: UInt8) throws -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    private mutating func consumeDigits() throws -> Int {
        let start = position
        while position < bytes.count, bytes[position] &- UInt8(ascii: "0") < 10 { position += 1 }
        return position - start
    }

    private mutating func expectWord(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard bytes.count - position >= count else { throw malformed() }
        for index in 0..<count where bytes[position + index] != word.utf8Start[index] { throw malformed() }
        position += count
    }

    /// Validates a string; copies its unescaped bytes into `decoded` only once an escape
    /// shows up. Returns whether it did (false: the raw bytes are the string).
    @discardableResult
    private mutating func scanString(into decoded: UnsafeMutablePointer<[UInt8]>?) throws -> Bool {
        try expect(UInt8(ascii: "\""))
        let start = position
        var escaped = false
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return escaped
            case UInt8(ascii: "\\"):
                if !escaped, let decoded {
                    decoded.pointee.append(contentsOf: bytes[start..<position])
                }
                escaped = true
                position += 1
                guard position < bytes.count else { throw malformed() }
                let escape = bytes[position]
                position += 1
                let scalar: UInt32
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalar = UInt32(escape)
                case UInt8(ascii: "b"): scalar = 0x08
                case UInt8(ascii: "f"): scalar = 0x0C
                case UInt8(ascii: "n"): scalar = 0x0A
                case UInt8(ascii: "r"): scalar = 0x0D
                case UInt8(ascii: "t"): scalar = 0x09
                case UInt8(ascii: "u"): scalar = try readUnicodeEscape()
                default: throw malformed()
                }
                if let decoded { Self.appendUTF8(scalar, to: &decoded.pointee) }
            case 0x00..<0x20:
                throw malformed()  // control characters must be escaped
            default:
                if byte >= 0x80 { try skipUTF8Sequence() } else { position += 1 }
                if escaped, let decoded { decoded.pointee.append(contentsOf: bytes[(position - Self.sequenceLength(byte))..<position]) }
                continue
            }
        }
        throw malformed()
    }

    private mutating func readHex4() throws -> UInt32 {
        guard bytes.count - position >= 4 else { throw malformed() }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = HexDigit.value(bytes[position]) else { throw malformed() }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    private mutating func readUnicodeEscape() throws -> UInt32 {
        let first = try readHex4()
        switch first {
        case 0xD800...0xDBFF:
            // A high surrogate must be followed by an escaped low one.
            guard bytes.count - position >= 6, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                throw malformed()
            }
            position += 2
            let second = try readHex4()
            guard (0xDC00...0xDFFF).contains(second) else { throw malformed() }
            return 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
        case 0xDC00...0xDFFF:
            throw malformed()
        default:
            return first
        }
    }

    private static func sequenceLength(_ lead: UInt8) -> Int {
        switch lead {
        case 0x00..<0x80: return 1
        case 0xC0..<0xE0: return 2
        case 0xE0..<0xF0: return 3
        default: return 4
        }
    }

    /// Passes over one well-formed UTF-8 sequence (no overlongs, surrogates or values past U+10FFFF).
    private mutating func skipUTF8Sequence() throws {
        let lead = bytes[position]
        let length: Int
        let minimum: UInt32
        var scalar: UInt32
        switch lead {
        case 0xC2...0xDF: length = 2; minimum = 0x80; scalar = UInt32(lead & 0x1F)
        case 0xE0...0xEF: length = 3; minimum = 0x800; scalar = UInt32(lead & 0x0F)
        case 0xF0...0xF4: length = 4; minimum = 0x10000; scalar = UInt32(lead & 0x07)
        default: throw malformed()
        }
        guard bytes.count - position >= length else { throw malformed() }
        for index in 1..<length {
            let byte = bytes[position + index]
            guard byte & 0xC0 == 0x80 else { throw malformed() }
            scalar = scalar << 6 | UInt32(byte & 0x3F)
        }
        guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else { throw malformed() }
        position += length
    }

    private static func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            out.append(UInt8(scalar))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | scalar >> 6))
            out.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | scalar >> 12))
            out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            out.append(UInt8(0x80 | scalar & 0x3F))
        default:
            out.append(UInt8(0xF0 | scalar >> 18))
            out.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            out.append(UInt8(0x80 | scalar & 0x3F))
        }
    }
}
