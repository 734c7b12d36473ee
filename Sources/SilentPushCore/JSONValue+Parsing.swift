extension JSONValue {
    /// Why bytes are not a JSON value the admin API, the config file or a handler's answer
    /// takes.
    package enum ParseError: Error, Equatable {
        /// Not JSON (RFC 8259): reading stopped at byte `offset`.
        case malformed(offset: Int)
        /// An object names `key` twice, the second time with its value at byte `offset`. RFC 8259 leaves
        /// what that means to the reader; taking either silently would hide a mistake.
        case duplicateKey(String, offset: Int)
        /// Objects and arrays nested more than `JSONScanner.maximumDepth` deep; the one at
        /// `offset` opens the level too many.
        case tooDeep(offset: Int)

        /// Where reading stopped.
        package var offset: Int {
            switch self {
            case .malformed(let offset), .duplicateKey(_, let offset), .tooDeep(let offset): offset
            }
        }
    }

    /// The JSON value `bytes` hold, with each object's members in the order written. A whole
    /// number that fits 64 bits reads as `.int` (`50.0` too); any other number as `.double`
    /// (a finite one: `1e999` is refused). A leading UTF-8 byte order mark is passed over, as
    /// RFC 8259 allows (an editor on Windows may save one); offsets count it.
    package static func parse(_ bytes: some Collection<UInt8>) throws(ParseError) -> JSONValue {
        let array = Array(bytes)
        let start = array.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        return try array.withUnsafeBufferPointer { whole throws(ParseError) in
            var scanner = JSONScanner(UnsafeBufferPointer(rebasing: whole[start...]))
            do {
                let value = try read(&scanner)
                try scanner.expectEnd()
                return value
            } catch let error as ParseError {
                switch error {
                case .malformed(let offset): throw .malformed(offset: start + offset)
                case .duplicateKey(let key, let offset): throw .duplicateKey(key, offset: start + offset)
                case .tooDeep(let offset): throw .tooDeep(offset: start + offset)
                }
            } catch let error as JSONScanner.TooDeep {
                throw .tooDeep(offset: start + error.offset)
            } catch {
                throw .malformed(offset: start + ((error as? JSONScanner.Malformed)?.offset ?? scanner.offset))
            }
        }
    }

    private static func read(_ scanner: inout JSONScanner) throws -> JSONValue {
        switch try scanner.peek() {
        case .null:
            _ = try scanner.readScalarText()
            return .null
        case .bool: return .bool(try scanner.readBool())
        case .string: return .string(try scanner.readString())
        case .number:
            let start = scanner.offset
            let text = try scanner.readNumberText()
            if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }), let value = Int64(text) { return .int(value) }
            guard let value = Double(text), value.isFinite else { throw ParseError.malformed(offset: start) }
            // `50.0` and `1e2` are whole numbers, as a field that takes one reads them.
            return Int64(exactly: value).map(JSONValue.int) ?? .double(value)
        case .array:
            var values: [JSONValue] = []
            try scanner.readArray { values.append(try read(&$0)) }
            return .array(values)
        case .object:
            var fields: [(String, JSONValue)] = []
            // Keys compared as bytes: two spellings of "é" are two keys, as JSON has it.
            var keys: Set<[UInt8]> = []
            try scanner.readObject { scanner, key in
                guard keys.insert(Array(key.utf8)).inserted else { throw ParseError.duplicateKey(key, offset: scanner.offset) }
                fields.append((key, try read(&scanner)))
            }
            return .object(fields)
        }
    }
}
