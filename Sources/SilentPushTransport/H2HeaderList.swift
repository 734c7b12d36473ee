/// An ordered list of HTTP/2 header fields, duplicates kept.
///
/// Names and values live in one byte buffer with an index beside it, so a request's
/// dozen headers cost two allocations instead of two dozen strings. Strings are made only
/// when asked for.
package struct H2HeaderList: Sendable, Equatable {
    @usableFromInline
    struct Entry: Sendable, Equatable {
        var nameStart: UInt32
        var nameLength: UInt32
        var valueStart: UInt32
        var valueLength: UInt32
    }

    @usableFromInline var storage: [UInt8]
    @usableFromInline var entries: [Entry]

    /// An empty list.
    package init() {
        storage = []
        entries = []
    }

    /// A list holding `fields` in order.
    package init(_ fields: [(name: String, value: String)]) {
        self.init()
        storage.reserveCapacity(fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count })
        entries.reserveCapacity(fields.count)
        for field in fields { append(name: field.name, value: field.value) }
    }

    /// Makes room for `bytes` of names and values in `fields` fields.
    package mutating func reserve(bytes: Int, fields: Int) {
        storage.reserveCapacity(bytes)
        entries.reserveCapacity(fields)
    }

    /// Empties the list, keeping its capacity.
    package mutating func removeAll() {
        storage.removeAll(keepingCapacity: true)
        entries.removeAll(keepingCapacity: true)
    }

    /// The number of fields.
    package var count: Int { entries.count }

    /// Whether the list has no field.
    package var isEmpty: Bool { entries.isEmpty }

    /// The bytes of names and values together, as HPACK counts a header list's size
    /// (RFC 9113 §6.5.2: name + value + 32 per field).
    package var encodedSize: Int { storage.count + 32 * entries.count }

    /// A list of one field, made without intermediate arrays (the common answer: `apns-id`).
    package init(name: String, value: String) {
        storage = []
        entries = []
        storage.reserveCapacity(name.utf8.count + value.utf8.count)
        entries.reserveCapacity(1)
        append(name: name, value: value)
    }

    /// Appends a field; names are expected in lower case, as HTTP/2 requires.
    package mutating func append(name: String, value: String) {
        let nameStart = storage.count
        storage.append(contentsOf: name.utf8)
        let valueStart = storage.count
        storage.append(contentsOf: value.utf8)
        entries.append(
            Entry(
                nameStart: UInt32(nameStart), nameLength: UInt32(valueStart - nameStart),
                valueStart: UInt32(valueStart), valueLength: UInt32(storage.count - valueStart)))
    }

    /// Appends a field from raw bytes (the transport's path: no intermediate strings).
    package mutating func append(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        let nameStart = storage.count
        storage.appendBytes(name)
        let valueStart = storage.count
        storage.appendBytes(value)
        entries.append(
            Entry(
                nameStart: UInt32(nameStart), nameLength: UInt32(name.count),
                valueStart: UInt32(valueStart), valueLength: UInt32(value.count)))
    }

    /// The field at `index`.
    package subscript(index: Int) -> (name: String, value: String) {
        let entry = entries[index]
        return (string(entry.nameStart, entry.nameLength), string(entry.valueStart, entry.valueLength))
    }

    /// The value of the first field called `name` (lower case), if any.
    package func first(_ name: String) -> String? {
        guard let index = firstIndex(of: name) else { return nil }
        let entry = entries[index]
        return string(entry.valueStart, entry.valueLength)
    }

    /// Every value of the fields called `name` (lower case), in order.
    package func values(_ name: String) -> [String] {
        indices(of: name).map { string(entries[$0].valueStart, entries[$0].valueLength) }
    }

    /// How many fields are called `name` (lower case).
    package func count(of name: String) -> Int {
        indices(of: name).count
    }

    /// Every field, in order.
    package var fields: [(name: String, value: String)] {
        (0..<count).map { self[$0] }
    }

    /// Calls `body` with each field's raw name and value, in order.
    package func forEachRaw(_ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) throws -> Void) rethrows {
        try storage.withUnsafeBytes { bytes in
            for entry in entries {
                try body(
                    UnsafeRawBufferPointer(rebasing: bytes[Int(entry.nameStart)..<Int(entry.nameStart + entry.nameLength)]),
                    UnsafeRawBufferPointer(rebasing: bytes[Int(entry.valueStart)..<Int(entry.valueStart + entry.valueLength)]))
            }
        }
    }

    private func firstIndex(of name: String) -> Int? {
        var name = name
        return name.withUTF8 { wanted in
            storage.withUnsafeBufferPointer { bytes in
                entries.firstIndex { matches($0, wanted, bytes) }
            }
        }
    }

    private func indices(of name: String) -> [Int] {
        var name = name
        return name.withUTF8 { wanted in
            storage.withUnsafeBufferPointer { bytes in
                entries.indices.filter { matches(entries[$0], wanted, bytes) }
            }
        }
    }

    private func matches(_ entry: Entry, _ wanted: UnsafeBufferPointer<UInt8>, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard Int(entry.nameLength) == wanted.count else { return false }
        let start = Int(entry.nameStart)
        for offset in 0..<wanted.count where bytes[start + offset] != wanted[offset] { return false }
        return true
    }

    private func string(_ start: UInt32, _ length: UInt32) -> String {
        storage.withUnsafeBufferPointer { bytes in
            String(decoding: UnsafeBufferPointer(rebasing: bytes[Int(start)..<Int(start + length)]), as: UTF8.self)
        }
    }
}

extension H2HeaderList: ExpressibleByDictionaryLiteral {
    package init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements.map { (name: $0.0, value: $0.1) })
    }
}

extension H2HeaderList: CustomStringConvertible {
    package var description: String {
        fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }
}

extension H2HeaderList: ExpressibleByArrayLiteral {
    package init(arrayLiteral elements: (String, String)...) {
        self.init(elements.map { (name: $0.0, value: $0.1) })
    }
}
