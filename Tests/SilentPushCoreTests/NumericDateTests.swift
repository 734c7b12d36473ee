import SilentPushCore
import Testing

/// `iat` as RFC 7519 defines NumericDate: any JSON number, compared at second precision.
@Suite struct NumericDateTests {
    @Test(
        arguments: [
            ("1767225600", 1_767_225_600),
            ("1767225600.0", 1_767_225_600),
            ("1767225600.999", 1_767_225_600),  // what Python's time.time() sends
            ("1.7672256e9", 1_767_225_600),
            ("1.7672256E+9", 1_767_225_600),
            ("17672256000e-1", 1_767_225_600),
            ("0", 0),
            ("253402300799", 253_402_300_799),
            ("253402300799.5", 253_402_300_799),
        ] as [(String, Int64)])
    func everyJSONNumberFormIsTaken(text: String, seconds: Int64) {
        #expect(NumericDate.seconds(text) == seconds)
    }

    @Test(arguments: [
        "-9223372036854775808", "9223372036854775807", "-1", "-0.5", "253402300800", "1e300", "1e999", "-1e999",
        "nan", "NaN", "inf", "infinity", "0x1p3", "", "-", "1.", ".5", "1e", "1e+", "12abc", " 1", "1 ",
    ])
    func anythingElseOrOutOfRangeIsRefused(text: String) {
        #expect(NumericDate.seconds(text) == nil)
    }
}
