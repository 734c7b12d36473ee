import SilentPushCore
import Testing

@Suite struct FetchURLTemplateTests {
    static func payload(_ json: String) throws -> APNsPayload {
        let bytes = Array(json.utf8)
        return try bytes.withUnsafeBufferPointer { try APNsPayload.parse($0) }
    }

    @Test func fillsInTokenTopicAndPayloadKeysEscaped() throws {
        let template = try FetchURLTemplate("http://127.0.0.1:8080/feeds/{topic}/{token}?section={section}&n={count}")
        let url = try template.expand(
            token: "abcd", topic: "com.example.app",
            payload: try Self.payload(#"{"aps":{"content-available":1},"section":"top stories/é&x","count":3}"#))
        #expect(url == "http://127.0.0.1:8080/feeds/com.example.app/abcd?section=top%20stories%2F%C3%A9%26x&n=3")
    }

    @Test func aMissingPayloadKeyIsNamed() throws {
        let template = try FetchURLTemplate("https://origin.example/{feed}")
        let problem = #expect(throws: FetchURLTemplate.Problem.self) {
            try template.expand(token: "ab", topic: "t", payload: try Self.payload(#"{"aps":{},"feed":{"nested":1}}"#))
        }
        #expect(problem?.description == "the payload has no top-level string, number or boolean 'feed' for {feed} in https://origin.example/{feed}")
    }

    @Test func aBooleanPayloadKeyIsFilledInAsWritten() throws {
        let template = try FetchURLTemplate("https://origin.example/feed?full={full}")
        let url = try template.expand(token: "ab", topic: "t", payload: try Self.payload(#"{"aps":{},"full":false}"#))
        #expect(url == "https://origin.example/feed?full=false")
    }

    /// A run has no payload: its URL fills `{token}` and `{topic}` and leaves a payload key empty.
    @Test func withoutAPayloadAKeyIsLeftEmpty() throws {
        let template = try FetchURLTemplate("http://127.0.0.1:8080/feeds/{topic}/{token}?section={section}")
        #expect(template.expand(token: "abcd", topic: "com.example.app") == "http://127.0.0.1:8080/feeds/com.example.app/abcd?section=")
    }

    @Test(arguments: ["http://", "https:///feed/{token}", "http://:8080/x", "http://?q={token}"])
    func aTemplateWithNoHostIsRefusedSayingSo(text: String) {
        #expect { try FetchURLTemplate(text) } throws: { "\($0)".contains("names no host") }
    }

    /// A port written out must be one a connection can use; one from a placeholder, or none,
    /// is not judged here.
    @Test func aPortOutOfRangeIsRefused() throws {
        #expect { try FetchURLTemplate("http://127.0.0.1:70000/{token}") } throws: {
            "\($0)" == "'http://127.0.0.1:70000/{token}' has port '70000': give one from 1 to 65535"
        }
        for text in ["http://u:p@[::1]:0/x", "http://{host}:99999/x"] {
            #expect(throws: FetchURLTemplate.Problem.self) { try FetchURLTemplate(text) }
        }
        for text in [
            "http://[::1]:8080/{token}", "http://[::1]/x", "http://u:p@host:443/x", "http://host:/x", "http://host:{port}/x", "http://{a:b}/x",
        ] {
            #expect(throws: Never.self) { try FetchURLTemplate(text) }
        }
    }

    /// A host no URL parser reads (the fetch failed at every wake, "not a URL this host can
    /// parse") is refused at start-up, naming what is wrong.
    @Test(arguments: [
        ("http://[bad/{token}", "has a '[' with no ']' in its host"), ("http://[::1]x/{token}", "has 'x' after its host's ']'"),
        ("http://h h/{token}", "has ' ' in its host"), ("http://h|x/{token}", "has '|' in its host"),
        ("http://h\tx/{token}", "has '\\t' in its host"),
        ("http://%zz/{token}", "has a '%' in its host that is not followed by two hex digits"),
    ])
    func aHostNoURLHoldsIsRefused(text: String, problem: String) {
        #expect { try FetchURLTemplate(text) } throws: { "\($0)".hasPrefix("'\(text)' \(problem)") }
    }

    @Test(arguments: [
        "http://{host}:{port}/x", "http://u:p@h:8080/x", "http://[::1]:80/{token}", "http://bücher.example/x", "http://h%41/x",
        "http://{a:b}.example/x", "https://a-b.c_d~e/x", "http://[::1]{path}",
    ])
    func aHostAURLHoldsIsTaken(text: String) {
        #expect(throws: Never.self) { try FetchURLTemplate(text) }
    }

    /// A scheme is read in any case, as RFC 3986 and the HTTP client read it; the URL keeps it
    /// as written.
    @Test(arguments: [
        ("HTTPS://origin.example/{token}", "HTTPS://origin.example/ab"), ("Http://127.0.0.1:8080/{token}", "Http://127.0.0.1:8080/ab"),
    ])
    func theSchemeIsReadInAnyCase(text: String, url: String) throws {
        #expect(try FetchURLTemplate(text).expand(token: "ab", topic: "t") == url)
    }

    @Test(arguments: ["ftp://x/{token}", "http://x/{token", "http://x/{}", "http://x/token}", "httpx://x/{token}", "http:/x/{token}"])
    func aBadTemplateIsRefused(text: String) {
        #expect(throws: FetchURLTemplate.Problem.self) { try FetchURLTemplate(text) }
    }
}
