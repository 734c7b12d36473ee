import Foundation
import SilentPushReceiver
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// The served OpenAPI document against the router: every route is documented, and every
/// documented operation is a route (schemathesis, in the live tests, checks the answers).
@Suite struct AdminOpenAPITests {
    static func curl(_ port: Int, _ arguments: [String]) async throws -> (status: Int, headers: String, body: String) {
        let result = try await PeerProcess.run("curl", ["-sS", "-i"] + arguments.dropLast() + ["http://127.0.0.1:\(port)\(arguments.last!)"])
        let parts = result.output.components(separatedBy: "\r\n\r\n")
        let head = parts.first ?? ""
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        return (status, head, parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    @Test func theDocumentHasEveryRouteAndNoOther() async throws {
        try await Receiver(.testing()).whileRunning { receiver in
            let port = try #require(receiver.adminPort)
            let served = try await Self.curl(port, ["/v1/openapi.json"])
            #expect(served.status == 200 && served.headers.lowercased().contains("content-type: application/json"))
            let document = try #require(try JSONSerialization.jsonObject(with: Data(served.body.utf8)) as? [String: Any])
            #expect(document["openapi"] as? String == "3.1.0")
            let paths = try #require(document["paths"] as? [String: [String: Any]])
            let methods: Set<String> = ["get", "put", "post", "patch", "delete"]
            let documented = Set(
                paths.flatMap { path, item in item.keys.filter(methods.contains).map { "\($0.uppercased()) \(path)" } })
            let routes = Set(receiver.adminRoutes)
            #expect(routes.count > 30)
            #expect(routes.subtracting(documented).isEmpty, "routes not in openapi.yaml: \(routes.subtracting(documented).sorted())")
            #expect(documented.subtracting(routes).isEmpty, "documented but not routed: \(documented.subtracting(routes).sorted())")
        }
    }

    @Test func aMethodThePathDoesNotTakeIs405WithAllow() async throws {
        try await Receiver(.testing()).whileRunning { receiver in
            let port = try #require(receiver.adminPort)
            let put = try await Self.curl(port, ["-X", "PUT", "-H", "content-type: text/plain", "/v1/clock"])
            #expect(put.status == 405, "\(put)")
            #expect(put.headers.lowercased().contains("allow: get, head"))
            #expect(put.body.contains(#""status":405"#) && put.body.contains("takes GET"))
            let tasks = try await Self.curl(port, ["-X", "PATCH", "/v1/devices/\(String(repeating: "ab", count: 32))/apps/com.example.app/tasks"])
            #expect(tasks.status == 405 && tasks.headers.lowercased().contains("allow: delete, get, head, post"), "\(tasks)")
            #expect(try await Self.curl(port, ["/v1/nothing/here"]).status == 404)
        }
    }

    @Test func aQueryParameterTheRouteDoesNotTakeIs422() async throws {
        try await Receiver(.testing()).whileRunning { receiver in
            let port = try #require(receiver.adminPort)
            let misspelled = try await Self.curl(port, ["/v1/pushes?devcie=ab"])
            #expect(misspelled.status == 422 && misspelled.body.contains("unknown query parameter 'devcie'"), "\(misspelled)")
            let twice = try await Self.curl(port, ["/v1/pushes?limit=5&limit=1000"])
            #expect(twice.status == 422 && twice.body.contains("'limit' is given twice"), "\(twice)")
            #expect(try await Self.curl(port, ["/v1/devices?state=idle&state=charging"]).status == 200)
            #expect(try await Self.curl(port, ["/v1/pushes?fate=coalesced&limit=5"]).status == 200)
            // Filters that cannot match anything are refused instead of answering an empty list;
            // a topic as a push refused BadTopic was sent with is still a filter.
            for path in ["/v1/pushes?topic=", "/v1/devices?topic=", "/v1/wakes?topic="] {
                let topic = try await Self.curl(port, [path])
                #expect(topic.status == 422 && topic.body.contains("topic must not be empty"), "\(path): \(topic)")
            }
            #expect(try await Self.curl(port, ["/v1/pushes?topic=com.example%20app"]).status == 200)
            let body = try await Self.curl(port, ["/v1/contents/body?device=xyz&topic=com.example.app"])
            #expect(body.status == 422 && body.body.contains("device must be a device token"), "\(body)")
        }
    }

    @Test func headAnswersAsGetWithoutTheBody() async throws {
        try await Receiver(.testing()).whileRunning { receiver in
            let port = try #require(receiver.adminPort)
            for path in ["/healthz", "/v1/clock", "/v1/pushes"] {
                let head = try await Self.curl(port, ["-I", path])
                #expect(head.status == 200, "HEAD \(path): \(head)")
                #expect(head.headers.lowercased().contains("content-type: application/json"), "HEAD \(path): \(head)")
                #expect(head.body.isEmpty, "HEAD \(path) sent a body: \(head.body)")
            }
            // A streamed answer's length is not known ahead: HEAD says none, as GET does, not 0.
            for (path, accept, type) in [
                ("/v1/pushes", "application/x-ndjson", "application/x-ndjson"), ("/v1/wakes", "text/csv", "text/csv"),
                ("/v1/events", "text/event-stream", "text/event-stream"),
            ] {
                let head = try await Self.curl(port, ["-I", "-H", "accept: \(accept)", path])
                let headers = head.headers.lowercased()
                #expect(head.status == 200 && headers.contains("content-type: \(type)"), "HEAD \(path): \(head)")
                #expect(!headers.contains("content-length"), "HEAD \(path) gave a length: \(head)")
            }
            // A path with no GET takes no HEAD either.
            let reset = try await Self.curl(port, ["-I", "/v1/reset"])
            #expect(reset.status == 405 && reset.headers.lowercased().contains("allow: post"), "\(reset)")
            #expect(reset.body.isEmpty && reset.headers.lowercased().contains("content-length: "), "\(reset)")
            let missing = try await Self.curl(port, ["-I", "/v1/nothing"])
            #expect(missing.status == 404, "\(missing)")
        }
    }

    @Test func requestsThatTakeNoFieldsSayWhenGivenSomeAndTopicsAreChecked() async throws {
        try await Receiver(.testing()).whileRunning { receiver in
            let port = try #require(receiver.adminPort)
            let json = ["-H", "content-type: application/json"]
            let token = String(repeating: "ab", count: 32)
            let withField = try await Self.curl(port, ["-X", "POST"] + json + ["--data", #"{"now": true}"#, "/v1/devices/\(token)/reboot"])
            #expect(withField.status == 422 && withField.body.contains("takes no fields"), "\(withField)")
            #expect(try await Self.curl(port, ["-X", "POST"] + json + ["--data", "{}", "/v1/devices/\(token)/reboot"]).status == 200)
            // A field given twice is refused, not read as either value.
            let twice = try await Self.curl(
                port, ["-X", "PATCH"] + json + ["--data", #"{"batteryLevel": 5, "batteryLevel": 50}"#, "/v1/devices/\(token)"])
            #expect(twice.status == 422 && twice.body.contains("the body gives 'batteryLevel' twice"), "\(twice)")
            #expect(try await Self.curl(port, ["-X", "POST"] + json + ["/v1/reset"]).status == 200)
            // A DELETE needs no content type: a browser cannot send one across sites unasked.
            #expect(try await Self.curl(port, ["-X", "DELETE", "/v1/faults"]).status == 200)
            let control = try await Self.curl(port, ["/v1/devices/\(token)/apps/%C2%84"])
            #expect(control.status == 422 && control.body.contains("bundle ID"), "\(control)")
            let odd = try await Self.curl(port, ["/v1/devices/\(String(repeating: "a", count: 65))"])
            #expect(odd.status == 422, "an odd number of hex digits is not a token of whole bytes")
        }
    }
}
