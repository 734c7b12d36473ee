import Foundation
import SilentPushReceiver
import SilentPushSender
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// A receiver that was reached but does not answer (here its admin API behind a relay gone
/// silent) is said to be slow, with exit 2 and the request that waited, not "not running".
@Suite struct AdminNoAnswerTests {
    @Test func anExportThatGetsNoAnswerSaysSoAndASilenceEndedExportsTheRows() async throws {
        try await Receiver.withTesting { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            let response = try await client.push()
            #expect(response.status == 200)
            let relay = try await TCPRelay.start(to: try #require(receiver.adminPort))
            defer { Task { await relay.close() } }
            let admin = "http://127.0.0.1:\(relay.port)"
            var exporter = AdminExporter(admin: admin, records: .pushes, format: .ndjson, filters: [], token: nil)
            exporter.headTimeout = .seconds(1)

            try await relay.freeze()
            await #expect(throws: AdminExporter.Failure.noAnswer(url: admin, what: "GET /v1/pushes", seconds: 1)) {
                _ = try await exporter.run { _ in }
            }
            #expect(
                AdminExporter.Failure.noAnswer(url: admin, what: "GET /v1/pushes", seconds: 1).description
                    == "the admin API at \(admin) had not answered GET /v1/pushes after 1 s (a busy receiver? it may still be working on it)")

            try await relay.thaw()
            var body = Data()
            _ = try await exporter.run { body.append($0) }
            let lines = String(decoding: body, as: UTF8.self).split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains(response.apnsID), "\(lines)")
        }
    }

    /// What answered may not be the admin API (an HTML page, a megabyte of text): a refusal
    /// says the first line of it, at most 200 characters, with no control character.
    @Test func aRefusalsBodyIsSaidInOneShortLine() {
        #expect(AdminExporter.Failure.oneLine("no such token") == "no such token")
        #expect(AdminExporter.Failure.oneLine("\n  <!DOCTYPE HTML>\n<html>\n<title>404</title>") == "<!DOCTYPE HTML> …")
        #expect(AdminExporter.Failure.oneLine(String(repeating: "x", count: 1_000_000)) == String(repeating: "x", count: 200) + " …")
        #expect(AdminExporter.Failure.oneLine("a\u{1B}[31mb") == "a?[31mb")
        #expect(AdminExporter.Failure.oneLine("") == "")
    }

    @Test func expectThatGetsNoAnswerExitsTwoAndNamesTheRequest() async throws {
        try await Receiver.withTesting { receiver in
            let relay = try await TCPRelay.start(to: try #require(receiver.adminPort))
            defer { Task { await relay.close() } }
            try await relay.freeze()
            let id = "00000000-0000-4000-8000-0000000000b1"
            let result = try await PushSendProcessTests.run([
                "expect", "--admin", "http://127.0.0.1:\(relay.port)", "--apns-id", id, "--fate", "delivered",
            ])
            #expect(result.status == 2)
            #expect(
                result.errorOutput
                    == "pushsend: the admin API at http://127.0.0.1:\(relay.port) had not answered GET /v1/clock after 5 s (a busy receiver? it may still be working on it)\n",
                "\(result.errorOutput)")
        }
    }

    /// Nobody listening at the admin address is said at once, not at the request's timeout
    /// (AsyncHTTPClient alone retries a refused connect until then: 30 s for an export, 5 s
    /// for each of expect's reads). The 20 s limit is far above a start and a probe, and
    /// below the export's 30 s.
    @Test func anAdminAddressNobodyListensAtIsSaidAtOnce() async throws {
        for command in [
            ["export", "pushes"], ["expect", "--apns-id", "00000000-0000-4000-8000-0000000000b2", "--fate", "delivered"],
        ] {
            let result = try await PeerProcess.run(
                try PushSendProcessTests.binary(), command + ["--admin", "http://127.0.0.1:1"], timeout: .seconds(20))
            #expect(!result.timedOut && result.status == 2, "\(command): \(result.status) \(result.errorOutput)")
            #expect(result.errorOutput.contains("cannot reach the admin API at http://127.0.0.1:1"), "\(result.errorOutput)")
            #expect(result.errorOutput.contains("connection refused"), "\(result.errorOutput)")
        }
    }
}
