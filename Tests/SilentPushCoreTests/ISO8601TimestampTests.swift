import SilentPushCore
import Testing

@Suite struct ISO8601TimestampTests {
    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (Int64(1), "1970-01-01T00:00:00.001Z"),
        (Int64(951_782_400_000), "2000-02-29T00:00:00.000Z"),  // a leap day in a century leap year
        (Int64(1_795_321_628_123), "2026-11-22T04:27:08.123Z"),
        (Int64(4_102_444_799_999), "2099-12-31T23:59:59.999Z"),
        (Int64(-1), "1969-12-31T23:59:59.999Z"),
    ])
    func formatsMillisecondsInUTC(milliseconds: Int64, expected: String) {
        #expect(ISO8601Timestamp.string(millisecondsSinceEpoch: milliseconds) == expected)
    }
}

@Suite struct FetchResultTests {
    @Test(arguments: [
        ("newData", FetchResult.newData),
        ("noData", .noData),
        ("  noData", .noData),
        ("noData   ", .noData),
        ("newData\t\r", .newData),
        ("failed \t", .failed(reason: "failed")),
        ("failed", .failed(reason: "failed")),
        ("failed origin answered 503\r", .failed(reason: "origin answered 503")),
        ("NEWDATA", .failed(reason: "unexpected result line: NEWDATA")),
        ("newData please", .failed(reason: "unexpected result line: newData please")),
        ("", .failed(reason: "no result line")),
    ])
    func readsAHandlersAnswerLine(line: String, expected: FetchResult) {
        #expect(FetchResult(line: Substring(line)) == expected)
    }
}

@Suite struct ISO8601TimestampParsingTests {
    @Test(arguments: [
        ("2026-11-22T04:27:08Z", Int64(1_795_321_628_000)), ("2026-11-22T04:27:08.123Z", 1_795_321_628_123),
        ("2026-11-22t04:27:08.123456789z", 1_795_321_628_123), ("2026-11-22T05:27:08+01:00", 1_795_321_628_000),
        ("2026-11-21T23:57:08.5-04:30", 1_795_321_628_500), ("1970-01-01T00:00:00Z", 0), ("1969-12-31T23:59:59.999Z", -1),
        ("0397-09-20T04:06:37Z", -49_616_394_803_000), ("2016-12-31T23:59:60Z", 1_483_228_799_999), ("2024-02-29T00:00:00Z", 1_709_164_800_000),
    ])
    func reads(text: String, milliseconds: Int64) {
        #expect(ISO8601Timestamp.millisecondsSinceEpoch(parsing: text) == milliseconds)
    }

    @Test func readsWhatItWrites() {
        for milliseconds in stride(from: Int64(-62_135_596_800_000), through: 9_000_000_000_000, by: 7_777_777_777_777) {
            #expect(ISO8601Timestamp.millisecondsSinceEpoch(parsing: ISO8601Timestamp.string(millisecondsSinceEpoch: milliseconds)) == milliseconds)
        }
    }

    @Test(arguments: [
        "", "2026-11-22", "2026-11-22T04:27:08", "2026-13-01T00:00:00Z", "2023-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
        "2026-11-22T24:00:00Z", "2026-11-22T04:60:00Z", "2026-11-22T04:27:61Z", "2026-11-22T04:27:08.Z", "2026-11-22T04:27:08+0100",
        "2026-11-22T04:27:08+24:00", "2026-11-22 04:27:08Z", "+2026-11-22T04:27:08Z", "2026-11-22T04:27:08Zjunk", "２026-11-22T04:27:08Z",
    ])
    func refuses(text: String) {
        #expect(ISO8601Timestamp.millisecondsSinceEpoch(parsing: text) == nil)
    }
}
