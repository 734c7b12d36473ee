import SilentPushCore
import Testing

/// How the admin API, the config file and a handler's answer read JSON: members in the order
/// written, a key given twice refused, whole numbers as integers, nothing lost silently.
@Suite struct JSONValueParsingTests {
    @Test func membersKeepTheirOrderAndTypes() throws {
        let value = try JSONValue.parse(#" {"b": 1, "a": [true, null, "x\u00e9"], "c": {"z": -2.5, "y": 50.0, "x": 1e2}} "#.utf8)
        #expect(
            value
                == .object([
                    ("b", .int(1)), ("a", .array([.bool(true), .null, .string("xé")])),
                    ("c", .object([("z", .double(-2.5)), ("y", .int(50)), ("x", .int(100))])),
                ]))
        #expect(value.rendered == #"{"b":1,"a":[true,null,"xé"],"c":{"z":-2.5,"y":50,"x":100}}"#)
        #expect(try JSONValue.parse("9223372036854775807".utf8) == .int(.max))
        #expect(try JSONValue.parse("-9223372036854775808".utf8) == .int(.min))
        // Past 64 bits a whole number is a double, as large as it is.
        #expect(try JSONValue.parse("18446744073709551616".utf8) == .double(18_446_744_073_709_551_616))
    }

    @Test(arguments: [
        (#"{"a": 1, "a": 2}"#, JSONValue.ParseError.duplicateKey("a", offset: 14)),
        (#"[{"x": {"k": 1, "k": 1}}]"#, .duplicateKey("k", offset: 21)),
        (#"{"a": }"#, .malformed(offset: 6)),
        (#"{"a": 1} x"#, .malformed(offset: 9)),
        ("1e999", .malformed(offset: 0)),
        ("", .malformed(offset: 0)),
        (#"{"a": 01}"#, .malformed(offset: 7)),
        // The object and 63 arrays are 64 levels; the 64th array, at byte 6 + 63, is one too many.
        (#"{"a": "# + String(repeating: "[", count: 64) + String(repeating: "]", count: 64) + "}", .tooDeep(offset: 69)),
    ])
    func whatIsRefusedAndWhere(text: String, expected: JSONValue.ParseError) {
        #expect(throws: expected) { try JSONValue.parse(text.utf8) }
    }

    @Test func aByteOrderMarkIsPassedOverAndOffsetsCountIt() throws {
        #expect(try JSONValue.parse([0xEF, 0xBB, 0xBF] + Array(#"{"a": 1}"#.utf8)) == .object([("a", .int(1))]))
        #expect(throws: JSONValue.ParseError.malformed(offset: 9)) { try JSONValue.parse([0xEF, 0xBB, 0xBF] + Array(#"{"a": }"#.utf8)) }
    }

    /// Keys are compared as bytes: "é" composed and "e" with a combining accent are two keys.
    @Test func keysThatLookAlikeAreTwoKeys() throws {
        let value = try JSONValue.parse("{\"\u{E9}\": 1, \"e\u{301}\": 2}".utf8)
        guard case .object(let fields) = value else { throw JSONValue.ParseError.malformed(offset: 0) }
        #expect(fields.count == 2)
    }

    @Test func theSameKeyInTwoObjectsIsNoRepeat() throws {
        #expect(throws: Never.self) { try JSONValue.parse(#"[{"a": 1}, {"a": 2}, {"b": {"a": 3}}]"#.utf8) }
    }
}
