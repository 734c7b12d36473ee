import Testing

@testable import SilentPushReceiver

/// A URL the receiver will not ask for is refused before the HTTP client sees it, with what
/// is wrong; a port too large for an integer is not read as none.
@Suite struct UnusableURLTests {
    @Test(arguments: [
        ("http://127.0.0.1:70000/", "port 70000 is not one from 1 to 65535"),
        ("http://127.0.0.1:99999999999999999999/", "port 99999999999999999999 is not one from 1 to 65535"),
        ("http://[::1]:0/x", "port 0 is not one from 1 to 65535"),
        ("ftp://127.0.0.1/x", "not an http or https URL"),
        ("http+unix://%2Ftmp%2Fs/x", "not an http or https URL"),
        ("http:///x", "it names no host"),
        ("http://%00/x", "its host holds a control character or a space"),
        ("http://a%20b/x", "its host holds a control character or a space"),
    ])
    func anUnusableURLIsRefusedSayingWhy(url: String, reason: String) {
        #expect(throws: UnusableURL(url: url, reason: reason)) { try UnusableURL.check(url) }
    }

    @Test(arguments: ["http://127.0.0.1:8080/x", "https://[::1]/x", "http://u:p@host:443/x?q=1", "HTTP://Example.com/", "http://h:000080/x"])
    func aUsableURLPasses(url: String) {
        #expect(throws: Never.self) { try UnusableURL.check(url) }
    }
}
