import Foundation
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// `silentpushd --config FILE`: flags as keys, registered devices, keys; flags override it.
@Suite struct SilentPushdConfigTests {
    static func write(_ json: String) throws -> String {
        let path = Scratch.directory.appendingPathComponent("silentpushd-\(UUID().uuidString).json").path
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static let other = String(repeating: "ab", count: 32)

    @Test func theFileSetsClockProfileKeysAndRegisteredDevices() async throws {
        let config = try Self.write(
            """
            {"clock": "manual", "profile": "fast", "deadline": 5, "maxConcurrentStreams": 50,
             "authKeys": ["DEVKEY0001:DEVTEAM001:\(DevCertificates.authKey)"],
             "deviceRegistry": "registeredOnly",
             "devices": [{"token": "\(SamplePush.deviceToken)", "topics": ["com.example.app"]},
                         {"token": "\(Self.other.uppercased().dropLast(2))cd", "state": {"thermalState": "serious", "batteryLevel": 12}}]}
            """)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start(["--config", config])
        defer { process.signal(SIGKILL) }
        #expect(try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/clock").json["clock"] as? String == "manual")
        // A device can start in a state.
        let hot = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/devices/\(Self.other.dropLast(2))cd").json
        #expect(hot["thermalState"] as? String == "serious" && hot["batteryLevel"] as? Int == 12, "\(hot)")
        let client = try await TestPushClient.connect(port: h2c)
        #expect(try await client.push().status == 200)
        let unknown = try await client.push(to: Self.other)
        #expect(unknown.status == 400 && unknown.reason == .badDeviceToken)
        let wrongTopic = try await client.push(topic: "com.example.other")
        #expect(wrongTopic.status == 400 && wrongTopic.reason == .deviceTokenNotForTopic)
        // fast: the second push wakes the app one second after the first.
        #expect(try await client.push().status == 200)
        #expect(try await SilentPushdDeviceTests.admin(admin, "POST", "/v1/clock/advance", body: #"{"seconds": 1}"#).status == 200)
        let wakes = try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/wakes").json["wakes"] as? [[String: Any]] ?? []
        #expect(wakes.count == 2)
        let first = try #require(wakes.last)
        let started = try SilentPushdDeviceTests.milliseconds(first["startedAt"])
        #expect(try SilentPushdDeviceTests.milliseconds(first["deadline"]) - started == 5_000)
        await client.close()
    }

    /// A flag on the command line replaces the file's value: a single value, a list's values
    /// all together (`adminHosts`), a boolean through its `--no-` form, and one way of a
    /// setting another (`--fetch-exec` for the file's `fetchURL`, which together would be
    /// refused).
    @Test func flagsOverrideTheFile() async throws {
        let config = try Self.write(
            #"{"clock": "manual", "profile": "fast", "adminHosts": ["file.example"], "strict": true, "fetchURL": "http://127.0.0.1:9/{token}"}"#)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let (process, _, h2c, admin) = try await SilentPushdProcessTests.start([
            "--config", config, "--clock", "system", "--admin-host", "flag.example", "--no-strict", "--fetch-exec", "true",
        ])
        defer { process.signal(SIGKILL) }
        #expect(try await SilentPushdDeviceTests.admin(admin, "GET", "/v1/clock").json["clock"] as? String == "system")
        func status(host: String) async throws -> String {
            try await PeerProcess.run(
                "curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Host: \(host)", "http://127.0.0.1:\(admin)/v1/clock"]
            ).output
        }
        #expect(try await status(host: "flag.example") == "200")
        #expect(try await status(host: "file.example") == "421")
        // Not strict: a background push at priority 10 is taken, as APNs takes it.
        let client = try await TestPushClient.connect(port: h2c)
        #expect(try await client.push(priority: .high).status == 200)
        await client.close()
        // The log names each key the command line replaced, so a file's value that did not
        // take is not a mystery.
        process.signal(SIGTERM)
        let errors = await process.wait().errorOutput
        #expect(errors.contains("the command line replaces \(config)'s clock, adminHosts, strict, fetchURL"), "\(errors)")
    }

    @Test(arguments: [
        (#"{"idleTimeout": "soon"}"#, ": idleTimeout 'soon' is not a duration (e.g. 500ms, 30s, 15m, 2h, 14d)"),
        (#"{"clock": 5}"#, ": clock must be a string"),
        (#"{"clock": "sundial"}"#, ": clock 'sundial' is not system or manual"),
        (#"{"strict": "yes"}"#, ": strict must be true or false"),
        (#"{"colour": "red"}"#, ": unknown key 'colour' (keys: "),
        (#"{"devices": [{"token": "xyz"}]}"#, ": each of devices needs a \"token\" of 64 to 200 hex digits"),
        (#"{"fetchHandlers": {"com.example.app": {"ftp": "x"}}}"#, ": fetchHandlers.com.example.app must be one of"),
        ("not json", ":1:1: the config file is not JSON here"),
        (#"{"requestTimeout": "9999999999h"}"#, ": requestTimeout '9999999999h' is longer than 1 day(s)"),
        (#"{"idleTimeout": 1e12}"#, ": idleTimeout '1000000000000' is longer than 30 day(s)"),
        (#"{"deadline": -3}"#, ": deadline '-3' is negative"),
        (#"{"deadline": 172800.5}"#, ": deadline '172800.5' is longer than"),
        (#"{"maxConnections": 0}"#, ": maxConnections must be from 1 to 1000000"),
        (#"{"maxConnections": 99999999999999999999}"#, ": maxConnections '1e+20' is out of range: give 1 to 1000000"),
        (#"{"threads": 1e300}"#, ": threads '1e+300' is out of range: give 1 to 1024"),
        (#"{"idleTimeout": -1e300}"#, ": idleTimeout '-1e+300' is negative"),
        (#"{"retainPushes": 1e30}"#, ": retainPushes must be"),
        (#"{"threads": 1.5}"#, ": threads must be a whole number"),
        (#"{"threads": 100000}"#, ": threads must be from 1 to 1024"),
        (#"{"adminHosts": "box"}"#, ": adminHosts must be a list"),
        (#"{"transferLimit": 100000}"#, ": transferLimit must be a whole number from 1 to 10000"),
    ])
    func aBadValueIsNamedByItsKey(json: String, message: String) async throws {
        let config = try Self.write(json)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let binary = try SilentPushdProcessTests.binary()
        let result = try await PeerProcess.run(
            binary,
            [
                "--config", config, "--listen", "off", "--listen-h2c", "127.0.0.1:0", "--admin", "off", "--store", "memory",
            ], timeout: .seconds(20))
        #expect(result.status == 2)
        #expect(result.errorOutput.hasPrefix("silentpushd: "), "\(result.errorOutput)")
        #expect(result.errorOutput.contains(message), "\(result.errorOutput)")
        #expect(result.errorOutput.split(separator: "\n").count == 1, "\(result.errorOutput)")
    }
}
