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
    ])
    func routes(method: String, path: String, expected: APNsRoute) {
        #expect(APNsRoute(method: method, path: path) == expected)
    }
}

@Suite struct APNsIDGeneratorTests {
    @Test func idsAreUpperCaseVersion4UUIDs() {
        let generator = APNsIDGenerator()
        for _ in 0..<1000 {
            let id = generator.next()
            #expect(id.count == 36)
            #expect(id == id.uppercased())
            let groups = id.split(separator: "-")
            #expect(groups.map(\.count) == [8, 4, 4, 4, 12])
            #expect(groups[2].first == "4")
            #expect("89AB".contains(groups[3].first!))
            #expect(id.allSatisfy { $0 == "-" || $0.isHexDigit })
        }
    }

    @Test func idsDoNotRepeat() {
        let generator = APNsIDGenerator(key: (0, 0))
        var seen = Set<String>()
        for _ in 0..<200_000 { seen.insert(generator.next()) }
        #expect(seen.count == 200_000)
    }

    @Test func oneGeneratorsIdsAscend() {
        // What keeps the store's apns_id index append-only.
        let generator = APNsIDGenerator()
        let ids = (0..<10_000).map { _ in generator.next() }
        #expect(ids == ids.sorted())
        #expect(Set(ids.map { $0.prefix(19) }).count == 1)
    }

    @Test func generatorsWithDifferentKeysDiffer() {
        #expect(APNsIDGenerator(key: (1, 2)).next() != APNsIDGenerator(key: (3, 4)).next())
        #expect(APNsIDGenerator(key: (1, 2)).next() == APNsIDGenerator(key: (1, 2)).next())
    }
}

@Suite struct DurationParsingTests {
    @Test(arguments: [
        ("500ms", Duration.milliseconds(500)), ("30s", .seconds(30)), ("15m", .seconds(900)),
        ("2h", .seconds(7200)), ("1.5s", .milliseconds(1500)), ("45", .seconds(45)), ("0", .zero),
    ])
    func parses(text: String, expected: Duration) {
        #expect(Duration(parsing: text) == expected)
    }

    @Test(arguments: ["", "abc", "-1s", "10x", "ms", "1e400s", "nan"])
    func rejects(text: String) {
        #expect(Duration(parsing: text) == nil)
    }
}
