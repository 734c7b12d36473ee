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
