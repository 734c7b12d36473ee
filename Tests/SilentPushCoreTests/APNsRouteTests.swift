import SilentPushCore
import Testing

@Suite struct APNsRouteTests {
    @Test(arguments: [
        ("POST", "/3/device/abcdef0123", APNsRoute.push(deviceToken: "abcdef0123")),
        ("POST", "/3/device/", .missingDeviceToken),
        ("GET", "/3/device/abcdef", .methodNotAllowed),
        ("POST", "/3/device/abc/def", .badPath),
        ("POST", "/3/device/abc?x=1", .badPath),
        ("POST", "/2/device/abc", .badPath),
        ("POST", "/", .badPath),
        ("POST", "", .badPath),
        ("POST", "/4/broadcasts/apps/com.example.MyApp", .broadcast(bundleID: "com.example.MyApp")),
        ("GET", "/4/broadcasts/apps/com.example.MyApp", .broadcastRefused(.methodNotAllowed)),
        ("POST", "/4/broadcasts/apps/", .broadcastRefused(.badPath)),
        ("POST", "/4/broadcasts/apps/com.example.MyApp/x", .broadcastRefused(.badPath)),
        ("POST", "/4/broadcasts/apps/com.example.MyApp?x=1", .broadcastRefused(.badPath)),
        ("POST", "/4/broadcasts/com.example.MyApp", .broadcastRefused(.badPath)),
        ("POST", "4/broadcasts/apps/com.example.MyApp", .badPath),
    ])
    func routes(method: String, path: String, expected: APNsRoute) {
        #expect(APNsRoute(method: method, path: path) == expected)
    }
}

@Suite struct APNsIDGeneratorTests {
    @Test func idsAreUpperCaseVersion4UUIDs() {
        let generator = APNsIDGenerator()
        for pushID in [0, 1, 42, 0xFFFF_FFFF, 0x3FFF_FFFF_FFFF_FFFF] as [UInt64] {
            let id = generator.apnsID(pushID: pushID)
            #expect(id.count == 36)
            #expect(id == id.uppercased())
            let groups = id.split(separator: "-")
            #expect(groups.map(\.count) == [8, 4, 4, 4, 12])
            #expect(groups[2].first == "4")
            #expect("89AB".contains(groups[3].first!))
            #expect(id.allSatisfy { $0 == "-" || $0.isHexDigit })
        }
    }

    @Test func theSecondHalfCarriesThePushID() {
        let generator = APNsIDGenerator(key: 7)
        #expect(generator.apnsID(pushID: 42).hasSuffix("-8000-00000000002A"))
        #expect(generator.apnsID(pushID: 0x3FFF_FFFF_FFFF_FFFF).hasSuffix("-BFFF-FFFFFFFFFFFF"))
    }

    /// The store checks a unique id it is asked for by making it again: the text must not
    /// change (the value is the documented recipe worked by hand, in Python).
    @Test func theUniqueIDFollowsFromTheAPNsIDAndThePushID() {
        let apnsID = "4F3A9C1E-7B2D-4E8F-8000-00000000002A"
        #expect(APNsIDGenerator.uniqueID(apnsID: apnsID, pushID: 42) == "9e127be0-edb0-422b-8000-00000000002a")
        let bytes = APNsIDGenerator.withUniqueID(apnsID: apnsID, pushID: 42) { Array($0) }
        #expect(bytes == Array("9e127be0-edb0-422b-8000-00000000002a".utf8))
    }

    @Test func distinctPushIDsGiveDistinctAscendingIDs() {
        let generator = APNsIDGenerator(key: 0)
        let ids = (0..<200_000 as Range<UInt64>).map { generator.apnsID(pushID: $0) }
        #expect(Set(ids).count == ids.count)
        #expect(ids == ids.sorted())
        #expect(Set(ids.map { $0.prefix(19) }).count == 1)
    }

    @Test func generatorsWithDifferentKeysDiffer() {
        #expect(APNsIDGenerator(key: 1).apnsID(pushID: 5) != APNsIDGenerator(key: 3).apnsID(pushID: 5))
        #expect(APNsIDGenerator(key: 1).apnsID(pushID: 5) == APNsIDGenerator(key: 1).apnsID(pushID: 5))
    }
}

@Suite struct DurationParsingTests {
    @Test(arguments: [
        ("500ms", Duration.milliseconds(500)), ("30s", .seconds(30)), ("15m", .seconds(900)),
        ("2h", .seconds(7200)), ("14d", .seconds(14 * 86_400)), ("1.5s", .milliseconds(1500)), ("45", .seconds(45)), ("0", .zero),
        // Above zero is never zero, which turns some limits off.
        ("0.4ms", .milliseconds(1)), ("0.0001s", .milliseconds(1)), ("0.0ms", .zero), (".5s", .milliseconds(500)),
    ])
    func parses(text: String, expected: Duration) {
        #expect(Duration(parsing: text) == expected)
    }

    @Test func theLongestDurationStillHasNanoseconds() throws {
        let longest = try #require(Duration(parsing: "9223372035s"))
        #expect(longest.nanosecondCount == 9_223_372_035_000_000_000)
    }

    /// Past 292 years a duration has no Int64 nanoseconds: refused, not trapped on later.
    @Test(arguments: [
        "", "abc", "-1s", "10x", "ms", "1e400s", "nan", "inf", "9223372037s", "153722868m", "2562048h", "106752d", "1e18ms",
        // Only decimal digits: hex, a sign or an exponent is a typo more often than meant.
        "0x10d", "+5s", "1e3s", "1.2.3s", ".",
    ])
    func rejects(text: String) {
        #expect(Duration(parsing: text) == nil)
    }
}
