import Foundation
import SilentPushCore
import SilentPushReceiver
import Testing

/// Each bad config file gives its own typed error, whose description names the file, the key
/// and what the key takes.
@Suite struct ConfigFileErrorTests {
    static let path = "/etc/silentpushd.json"

    static func parse(_ json: String) throws(ConfigFileError) -> ConfigFile {
        try ConfigFile.parse(Data(json.utf8), path: path)
    }

    @Test(arguments: [
        ("not json", ConfigFileError.notJSON(path: path, line: 1, column: 1)),
        ("[1]", .notAnObject(path: path)),
        (#"{"strict": "yes"}"#, .invalidValue(path: path, key: "strict", expected: "true or false")),
        (#"{"clock": 5}"#, .invalidValue(path: path, key: "clock", expected: "a string")),
        (#"{"maxFetches": "many"}"#, .invalidValue(path: path, key: "maxFetches", expected: "a whole number")),
        (#"{"devices": {}}"#, .invalidValue(path: path, key: "devices", expected: "a list")),
        (#"{"devices": [{"token": "xyz"}]}"#, .invalidDeviceToken(path: path)),
        (
            #"{"devices": [{"token": "\#(String(repeating: "ab", count: 32))"}, {"token": "\#(String(repeating: "AB", count: 32))"}]}"#,
            .invalidValue(path: path, key: "devices", expected: "one entry per device; \(String(repeating: "ab", count: 32)) is listed twice")
        ),
        (
            #"{"devices": [{"token": "\#(String(repeating: "ab", count: 32))", "topics": ["com.example.app "]}]}"#,
            .invalidValue(path: path, key: "devices[].topics", expected: "topics (bundle IDs); 'com.example.app ' is not one")
        ),
        (
            #"{"fetchHandlers": {"": {"noData": true}}}"#,
            .invalidValue(path: path, key: "fetchHandlers", expected: "keyed by topics (bundle IDs); '' is not one")
        ),
        (#"{"apps": {"a b": {}}}"#, .invalidValue(path: path, key: "apps", expected: "keyed by topics (bundle IDs); 'a b' is not one")),
        // A declared identifier the admin API could not name is refused where it is declared.
        (
            #"{"apps": {"com.example.app": {"permittedTaskIdentifiers": ["com.example/refresh"]}}}"#,
            .invalidValue(
                path: path, key: "apps.com.example.app.permittedTaskIdentifiers",
                expected: "a list of task identifiers (each 1 to 200 visible ASCII characters, no /)")
        ),
        (
            #"{"devices": [{"token": "\#(String(repeating: "ab", count: 32))", "topics": [1]}]}"#,
            .invalidValue(path: path, key: "devices[].topics", expected: "strings")
        ),
        (
            #"{"devices": [{"token": "\#(String(repeating: "ab", count: 32))", "state": {"batteryLevel": 120}}]}"#,
            .invalidValue(path: path, key: "devices[].state.batteryLevel", expected: "a whole number from 0 to 100 (%)")
        ),
        (
            #"{"devices": [{"token": "\#(String(repeating: "ab", count: 32))", "state": {"mood": "happy"}}]}"#,
            .invalidValue(
                path: path, key: "devices[].state",
                expected:
                    "device fields: unknown field 'mood' (fields: forceQuit, backgroundRefresh, lowPowerMode, dailyBudget, batteryLevel, charging, thermalState, debuggerAttached, network, networkType, idle, unregistered)"
            )
        ),
    ])
    func aBadFileGivesItsCase(json: String, expected: ConfigFileError) {
        #expect(throws: expected) { try Self.parse(json) }
    }

    /// More fault rules than the receiver's table holds are refused, not cut to the first 1,000.
    @Test func moreFaultRulesThanTheTableHoldsAreRefused() throws {
        let rule = #"{"action": {"reason": "ServiceUnavailable"}}"#
        func file(_ count: Int) -> String { #"{"faults": ["# + Array(repeating: rule, count: count).joined(separator: ",") + "]}" }
        #expect(try Self.parse(file(FaultTable.capacity)).faults.count == FaultTable.capacity)
        #expect(throws: ConfigFileError.invalidValue(path: Self.path, key: "faults", expected: "a list of at most 1000 fault rules (it has 1001)")) {
            try Self.parse(file(FaultTable.capacity + 1))
        }
    }

    /// A key given twice is refused where the second one's value is, not read as either.
    @Test func aKeyGivenTwiceIsRefusedWhereTheSecondIs() {
        let json = "{\n  \"retain\": \"1d\",\n  \"clock\": \"manual\",\n  \"retain\": \"30d\"\n}\n"
        let expected = ConfigFileError.duplicateKey(path: Self.path, key: "retain", line: 4, column: 13)
        #expect(throws: expected) { try Self.parse(json) }
        #expect(expected.description == "\(Self.path):4:13: 'retain' is given twice; keep one")
        // In a nested object too; the same key in two objects is no repeat.
        #expect(throws: ConfigFileError.self) {
            try Self.parse(#"{"devices": [{"token": "\#(String(repeating: "ab", count: 32))", "state": {"charging": true, "charging": false}}]}"#)
        }
        #expect(throws: Never.self) { try Self.parse(#"{"fetchHandlers": {"a.b": {"exec": "/bin/true"}, "c.d": {"exec": "/bin/true"}}}"#) }
    }

    /// Where reading stopped, as an editor counts: lines and characters from 1.
    @Test(arguments: [
        ("{\n  \"profile\": \"ios\",\n  \"minInterval\": 5s\n}\n", 3, 19),
        ("{\"profile\": \"ios\"\n\"clock\": \"manual\"}", 2, 1),
        ("{\n  \"store\": \"é/x.sqlite\" \"clock\": \"manual\"}", 2, 25),
        ("{\"profile\": \"ios\"", 1, 18),
        ("{\"profile\": /* never closed \n\"ios\"}", 2, 7),
    ])
    func notJSONSaysTheLineAndColumn(json: String, line: Int, column: Int) {
        #expect(throws: ConfigFileError.notJSON(path: Self.path, line: line, column: column)) { try Self.parse(json) }
        #expect(
            ConfigFileError.notJSON(path: Self.path, line: line, column: column).description
                == "\(Self.path):\(line):\(column): the config file is not JSON here")
    }

    @Test func commentsAreAllowedOutsideStrings() throws {
        let file = try Self.parse(
            """
            // A receiver for the team's staging tests.
            {
              "profile": "fast", // one second between wakes
              /* the manual clock: tests move it */ "clock": "manual",
              "store": "//not/a/comment/*.sqlite"
            }
            """)
        let pairs = stride(from: 0, to: file.arguments.count - 1, by: 2).map { [file.arguments[$0], file.arguments[$0 + 1]] }
        #expect(Set(pairs) == [["--profile", "fast"], ["--clock", "manual"], ["--store", "//not/a/comment/*.sqlite"]])
    }

    /// What the command line gives again replaces the file's: a list's values together, a
    /// boolean through its `--no-` form, `--fetch-exec` the file's `fetchURL`; the rest stands.
    @Test func theCommandLineReplacesWhatItGivesAgain() throws {
        let file = try Self.parse(
            #"{"authKeys": ["A:T:a.p8", "B:T:b.p8"], "adminHosts": ["one.example"], "strict": true, "fetchURL": "http://o/{token}", "clock": "manual"}"#
        )
        #expect(
            Set(file.arguments(under: []).split(separator: "--clock").joined()).isSuperset(of: ["--auth-key", "A:T:a.p8", "B:T:b.p8", "--strict"]))
        let kept = file.arguments(under: ["--auth-key=C:T:c.p8", "--no-strict", "--fetch-exec", "true", "--admin-token", "t"])
        #expect(Set(kept) == ["--admin-host", "one.example", "--clock", "manual"], "\(kept)")
        #expect(file.arguments(under: ["--fetch-url", "http://p/{token}"]).contains("http://o/{token}") == false)
        #expect(file.keys(replacedBy: ["--auth-key=C:T:c.p8", "--no-strict", "--fetch-exec", "true"]) == ["authKeys", "strict", "fetchURL"])
        // A value that starts with `--` is the option's value, as the parser reads it, not a flag.
        #expect(file.keys(replacedBy: ["--admin-token", "--auth-key", "--idle-timeout", "--clock"]).isEmpty)
        #expect(file.arguments(under: ["--admin-token", "--auth-key"]).contains("A:T:a.p8"))
        // The on/off flags take no value: the word after one is read as the next flag.
        #expect(file.keys(replacedBy: ["--no-strict", "--clock", "system"]) == ["strict", "clock"])
        #expect(file.keys(replacedBy: ["--", "--clock"]).isEmpty)
        // The config file is found the same way: not in another option's value, the last given.
        #expect(ConfigFile.options(in: ["--admin-token", "--config", "x"]).map(\.flag) == ["--admin-token"])
        let given = ConfigFile.options(in: ["--config=a.json", "--strict", "--config", "b.json", "--", "--config", "c.json"])
        #expect(given.map(\.flag) == ["--config", "--strict", "--config"] && given.map(\.value) == ["a.json", nil, "b.json"])
    }

    @Test func anUnknownKeyListsTheKnownOnes() {
        #expect {
            try Self.parse(#"{"colour": "red"}"#)
        } throws: { error in
            guard case .unknownKey(path: Self.path, key: "colour", let known) = error as? ConfigFileError else { return false }
            return known.contains("maxFetches") && known.contains("fetchHandlers") && known == known.sorted()
                && "\(error)".hasPrefix("\(Self.path): unknown key 'colour' (keys: ")
        }
    }

    @Test func aFetchHandlerOfNoKnownShapeIsNamedByTopic() {
        #expect {
            try Self.parse(#"{"fetchHandlers": {"com.example.app": {"ftp": "x"}}}"#)
        } throws: { error in
            guard case .invalidValue(path: Self.path, key: "fetchHandlers.com.example.app", let expected) = error as? ConfigFileError else {
                return false
            }
            return expected.hasPrefix("one of ")
        }
    }

    /// A flag's message names the key the file used: the longest flag first, so
    /// `--admin-token` is `adminToken`, not `admin` and a dangling `-token`.
    @Test func aFlagsMessageNamesTheFilesKey() throws {
        let file = try Self.parse(#"{"adminToken": "has space"}"#)
        #expect(
            file.describing("--admin-token must be printable ASCII with no spaces").hasSuffix(": adminToken must be printable ASCII with no spaces"))
        #expect(file.describing("--admin 'x' is not an address").hasSuffix(": admin 'x' is not an address"))
    }

    /// A duration given as a number of seconds may have a fraction: it is passed on in
    /// milliseconds (above zero, at least one).
    @Test func aDurationsSecondsMayHaveAFraction() throws {
        #expect(try Self.parse(#"{"deadline": 1.5}"#).arguments == ["--deadline", "1500ms"])
        #expect(try Self.parse(#"{"deadline": 1e-10}"#).arguments == ["--deadline", "1ms"])
        #expect(try Self.parse(#"{"deadline": 30}"#).arguments == ["--deadline", "30s"])
    }

    @Test func devicesCanStartInAState() throws {
        let token = String(repeating: "ab", count: 32)
        let file = try Self.parse(#"{"devices": [{"token": "\#(token)", "state": {"network": "offline", "batteryLevel": 15}}]}"#)
        var configuration = ReceiverConfiguration()
        file.apply(to: &configuration)
        #expect(configuration.deviceStates[token] == DeviceState(batteryLevel: 15, network: .offline))
    }

    @Test func appsDeclareTheirTasksAndABadDeclarationIsNamed() throws {
        let file = try Self.parse(
            #"{"apps": {"com.example.app": {"permittedTaskIdentifiers": ["com.example.app.refresh"], "backgroundModes": ["fetch", "remote-notification"]}}}"#
        )
        var configuration = ReceiverConfiguration()
        file.apply(to: &configuration)
        #expect(
            configuration.apps["com.example.app"]
                == AppDeclaration(permittedTaskIdentifiers: ["com.example.app.refresh"], backgroundModes: [.fetch, .remoteNotification]))
        #expect {
            try Self.parse(#"{"apps": {"com.example.app": {"backgroundModes": ["audio"]}}}"#)
        } throws: { error in
            guard case .invalidValue(path: Self.path, key: "apps.com.example.app.backgroundModes", let expected) = error as? ConfigFileError
            else { return false }
            return expected.contains("fetch, processing, remote-notification")
        }
    }

    @Test func appsDeclareFrequentLiveActivityUpdates() throws {
        let file = try Self.parse(#"{"apps": {"com.example.app": {"liveActivities": {"frequentUpdates": true}}}}"#)
        var configuration = ReceiverConfiguration()
        file.apply(to: &configuration)
        #expect(configuration.apps["com.example.app"]?.frequentUpdates == true)
        #expect {
            try Self.parse(#"{"apps": {"com.example.app": {"liveActivities": {"frequentUpdates": "yes"}}}}"#)
        } throws: { error in
            guard case .invalidValue(path: Self.path, key: "apps.com.example.app.liveActivities.frequentUpdates", _) = error as? ConfigFileError
            else { return false }
            return true
        }
    }

    @Test func anUnreadableFileIsNamed() {
        #expect(throws: ConfigFileError.unreadable(path: "/nonexistent/silentpushd.json", problem: "No such file or directory")) {
            try ConfigFile.load("/nonexistent/silentpushd.json")
        }
        #expect(throws: ConfigFileError.unreadable(path: "/tmp", problem: "Is a directory")) { try ConfigFile.load("/tmp") }
        #expect(throws: ConfigFileError.tooLarge(path: "/dev/zero", limit: ConfigFile.sizeLimit)) { try ConfigFile.load("/dev/zero") }
        #expect(
            "\(ConfigFileError.unreadable(path: "/x.json", problem: "Permission denied"))"
                == "cannot read the config file '/x.json': Permission denied")
    }
}
