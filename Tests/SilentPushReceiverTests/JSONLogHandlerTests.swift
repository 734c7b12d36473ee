import Foundation
import Logging
import Synchronization
import SilentPushReceiver
import Testing

/// The JSON log format: one object a line, whatever the message and metadata hold.
@Suite struct JSONLogHandlerTests {
    @Test func aLineIsOneObjectWithEveryFieldEscaped() throws {
        let lines = Mutex<[String]>([])
        var handler = JSONLogHandler(label: "silentpushd") { line in lines.withLock { $0.append(line) } }
        handler.metadata["receiver"] = "a"
        let logger = Logger(label: "silentpushd", factory: { _ in handler })
        logger.notice(
            "two\nlines \"quoted\"",
            metadata: ["push.apns_id": "X", "list": ["1", "2"], "nested": ["k": "v"], "receiver": "b", "level": "not the level"])
        let line = try #require(lines.withLock { $0 }.first)
        #expect(line.hasSuffix("}\n") && line.dropLast().split(separator: "\n").count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["message"] as? String == "two\nlines \"quoted\"")
        #expect(object["level"] as? String == "notice" && object["label"] as? String == "silentpushd")
        #expect(object["push.apns_id"] as? String == "X" && object["receiver"] as? String == "b")
        #expect(object["list"] as? [String] == ["1", "2"] && (object["nested"] as? [String: String]) == ["k": "v"])
    }
}
