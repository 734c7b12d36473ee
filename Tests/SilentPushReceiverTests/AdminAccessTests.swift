import SilentPushReceiver
import SilentPushTestSupport
import SilentPushTesting
import Foundation
import Testing

/// Who may call the admin API (issue 16, defect 8): Host against DNS rebinding, a JSON
/// content type against cross-site posts, and an optional bearer token.
@Suite struct AdminAccessTests {
    @Test func hostsThatNoDNSAnswerCanRebindPassAndNamesMustBeGiven() {
        let policy = AdminAccessPolicy(hosts: ["Silentpush.Staging.Example"])
        for host in [
            "127.0.0.1:2199", "localhost:2199", "localhost", "[::1]:2199", "10.0.0.7", "app.localhost:80", "silentpush.staging.example:2199",
        ] {
            #expect(policy.refusal(method: "GET", path: "/v1/stats", host: host, authorization: nil, contentType: nil) == nil, "\(host)")
        }
        for host in [
            "attacker.example", "attacker.example:2199", "127.0.0.1.attacker.example", "localhost.attacker.example", "1.2.3.4.5", "300.1.1.1",
        ] {
            #expect(policy.refusal(method: "GET", path: "/v1/stats", host: host, authorization: nil, contentType: nil)?.status == 421, "\(host)")
        }
    }

    @Test func stateChangesNeedJSON() {
        let policy = AdminAccessPolicy()
        for type in [nil, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonp"] {
            #expect(
                policy.refusal(method: "POST", path: "/v1/clock/advance", host: "localhost", authorization: nil, contentType: type)?.status == 415)
        }
        #expect(
            policy.refusal(
                method: "PATCH", path: "/v1/devices/aa", host: "localhost", authorization: nil, contentType: "application/json; charset=utf-8") == nil
        )
        #expect(policy.refusal(method: "GET", path: "/v1/clock", host: "localhost", authorization: nil, contentType: nil) == nil)
    }

    @Test func aTokenIsNeededEverywhereButTheProbes() {
        let policy = AdminAccessPolicy(token: "s3cret")
        #expect(policy.refusal(method: "GET", path: "/v1/stats", host: "localhost", authorization: nil, contentType: nil)?.status == 401)
        #expect(policy.refusal(method: "GET", path: "/v1/stats", host: "localhost", authorization: "Bearer s3cre", contentType: nil)?.status == 401)
        #expect(policy.refusal(method: "GET", path: "/v1/stats", host: "localhost", authorization: "Bearer s3cret!", contentType: nil)?.status == 401)
        #expect(policy.refusal(method: "GET", path: "/v1/stats", host: "localhost", authorization: "Basic s3cret", contentType: nil)?.status == 401)
        #expect(policy.refusal(method: "GET", path: "/v1/stats", host: "localhost", authorization: "bearer s3cret", contentType: nil) == nil)
        #expect(policy.refusal(method: "GET", path: "/healthz", host: "localhost", authorization: nil, contentType: nil) == nil)
        #expect(policy.refusal(method: "GET", path: "/readyz", host: "localhost", authorization: nil, contentType: nil) == nil)
        #expect(policy.refusal(method: "GET", path: "/", host: "localhost", authorization: nil, contentType: nil) == nil)  // the page: no data
        // A proxy's health check asks whether this receiver owns a shard, without credentials;
        // nothing else under /v1/cluster is open.
        #expect(policy.refusal(method: "GET", path: "/v1/cluster/shards/17", host: nil, authorization: nil, contentType: nil) == nil)
        #expect(policy.refusal(method: "HEAD", path: "/v1/cluster/shards/0", host: nil, authorization: nil, contentType: nil) == nil)
        for (method, path) in [
            ("GET", "/v1/cluster"), ("GET", "/v1/cluster/shards"), ("GET", "/v1/cluster/shards/"), ("GET", "/v1/cluster/shards/1/x"),
            ("GET", "/v1/cluster/shards/١"), ("POST", "/v1/cluster/shards/1"), ("GET", "/v1/cluster/shards/123456"),
        ] {
            #expect(policy.refusal(method: method, path: path, host: nil, authorization: nil, contentType: nil)?.status == 401, "\(method) \(path)")
        }
    }

    /// Against the live listener: what a web page could send is refused, curl as the docs
    /// show it passes.
    @Test func theListenerAppliesTheRules() async throws {
        try await Receiver.withTesting({ $0.adminToken = "s3cret" }) { receiver in
            let port = try #require(receiver.adminPort)
            func curl(_ arguments: [String]) async throws -> String {
                try await PeerProcess.run("curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}"] + arguments, timeout: .seconds(30)).output
            }
            let url = "http://127.0.0.1:\(port)/v1/clock/advance"
            let auth = ["-H", "authorization: Bearer s3cret"]
            #expect(try await curl(auth + ["-H", "content-type: text/plain", "--data", #"{"seconds":60}"#, url]) == "415")
            #expect(
                try await curl(
                    auth + ["-H", "host: rebound.attacker.example", "-H", "content-type: application/json", "--data", #"{"seconds":60}"#, url])
                    == "421")
            #expect(try await curl(["-H", "content-type: application/json", "--data", #"{"seconds":60}"#, url]) == "401")
            #expect(try await curl(auth + ["-H", "content-type: application/json", "--data", #"{"seconds":60}"#, url]) == "200")
            #expect(try await curl(["http://127.0.0.1:\(port)/healthz"]) == "200")
            #expect(try await curl(["http://127.0.0.1:\(port)/readyz"]) == "200")
        }
    }
}
