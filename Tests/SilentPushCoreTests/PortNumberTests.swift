import SilentPushCore
import Testing

/// Every address the project reads takes its port through `PortNumber`: digits only.
@Suite struct PortNumberTests {
    @Test(arguments: [("1", 1), ("443", 443), ("65535", 65535), ("08080", 8080)])
    func digitsInRangeAreAPort(text: String, port: Int) {
        #expect(PortNumber.parse(text) == port)
    }

    @Test(arguments: ["", "0", "65536", "99999", "+80", "-1", "-0", " 80", "80 ", "000443", "12ab", "٣", "1e3", "99999999999999999999"])
    func anythingElseIsNot(text: String) {
        #expect(PortNumber.parse(text) == nil)
    }

    @Test func zeroIsAPortOnlyWhereTheSystemPicksOne() {
        #expect(PortNumber.parse("0", allowingZero: true) == 0)
        #expect(PortNumber.parse("00000", allowingZero: true) == 0)
        #expect(PortNumber.parse("-0", allowingZero: true) == nil)
    }

    @Test func aURLsSignedPortIsRefusedWhereverAPortIsRead() throws {
        #expect(APNsTarget(url: "https://localhost:+443") == nil)
        #expect(APNsTarget(url: "https://[::1]:+443") == nil)
        #expect(APNsTarget(url: "https://localhost:2197")?.port == 2197)
        #expect(throws: PostgresURL.Problem.self) { try PostgresURL("postgres://u@h:+5432/d") }
    }

    /// A URL's port as written: past a user and password, outside an IPv6 address's brackets.
    @Test(
        arguments: [
            ("http://h:8080/x", "8080"), ("http://u:p@h:70000/x", "70000"), ("https://[::1]:443", "443"), ("http://h:/x", ""),
            ("http://[::1]/x", nil), ("http://u:p@h/x?q=a:b", nil), ("h:80", nil),
        ] as [(String, String?)])
    func aURLsPortIsReadAsWritten(url: String, port: String?) {
        #expect(PortNumber.text(inURL: url).map(String.init) == port)
    }
}
