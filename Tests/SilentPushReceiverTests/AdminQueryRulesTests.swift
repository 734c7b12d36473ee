@testable import SilentPushReceiver
import Testing

/// The query parameters each admin route takes come from the served OpenAPI document; any
/// other, or one given twice that the route takes once, is refused with a line naming it.
@Suite struct AdminQueryRulesTests {
    let rules = AdminAPI.queryRules

    @Test func theServedDocumentGivesEveryListItsParameters() {
        #expect(rules.routes.count > 30)
        let pushes = rules.routes.first { $0.method == "GET" && $0.path == "/v1/pushes" }
        #expect(pushes?.names == ["device", "topic", "fate", "from", "until", "cursor", "limit"])
        let devices = rules.routes.first { $0.method == "GET" && $0.path == "/v1/devices" }
        #expect(devices?.repeatable == ["state"])
    }

    @Test func whatPassesAndWhatIsRefused() {
        func refusal(_ method: String, _ path: String, _ query: [(String, String)]) -> String? {
            rules.refusal(method: method, path: path, query: query.map { (name: $0.0, value: $0.1) })
        }
        #expect(refusal("GET", "/v1/pushes", [("device", "ab"), ("fate", "coalesced"), ("limit", "5")]) == nil)
        #expect(refusal("HEAD", "/v1/pushes", [("limit", "5")]) == nil)
        #expect(
            refusal("GET", "/v1/pushes", [("devcie", "ab")])
                == "unknown query parameter 'devcie': GET /v1/pushes takes cursor, device, fate, from, limit, topic, until")
        #expect(refusal("GET", "/v1/pushes", [("limit", "5"), ("limit", "1000")]) == "query parameter 'limit' is given twice: give it once")
        #expect(refusal("GET", "/v1/devices", [("state", "idle"), ("state", "charging")]) == nil)
        #expect(refusal("GET", "/v1/wakes", [("from", "2026-11-22T00:00:00Z")]) == nil)
        #expect(refusal("GET", "/v1/wakes", [("fate", "delivered")])?.hasPrefix("unknown query parameter 'fate'") == true)
        #expect(refusal("GET", "/v1/clock", [("x", "1")]) == "unknown query parameter 'x': GET /v1/clock takes no query parameters")
        // A path parameter's route; the fixed path beside it keeps its own parameters.
        #expect(refusal("GET", "/v1/devices/\(String(repeating: "ab", count: 32))/apps/com.example.app/forecast", [("priority", "5")]) == nil)
        #expect(refusal("GET", "/v1/contents/body", [("url", "http://e.com/")]) == nil)
        // No such route, or not with that method: the router's 404 or 405.
        #expect(refusal("GET", "/v1/nothing", [("x", "1")]) == nil)
        #expect(refusal("PUT", "/v1/clock", [("x", "1")]) == nil)
        // `?&` has an empty name, which is no parameter.
        #expect(refusal("GET", "/v1/pushes", [("", "")]) == nil)
    }

    @Test func aDocumentThatDoesNotReadHasNoRules() {
        #expect(AdminQueryRules(document: "not json").routes.isEmpty)
    }
}
