import Foundation
import SilentPushCore
import SilentPushTransport

/// `silentpushd --config FILE`: a JSON object holding every setting (each flag as a
/// camelCase key), per-topic fetch handlers, registered devices and provider keys. Flags on
/// the command line override it. `//` and `/* */` comments are allowed, so a sample can
/// explain itself (`examples/silentpushd.json`).
///
/// ```json
/// {"listen": "127.0.0.1:2197", "clock": "manual", "profile": "fast", "store": "memory",
///  "authKeys": ["ABC123:TEAM456:keys/AuthKey_ABC123.p8"],
///  "fetchHandlers": {"com.example.news": {"url": "http://127.0.0.1:8080/news/{token}"},
///                    "com.example.mail": {"exec": "./fetch-mail.sh"}},
///  "deviceRegistry": "registeredOnly",
///  "devices": [{"token": "0123…cdef", "topics": ["com.example.news"],
///               "state": {"lowPowerMode": true, "batteryLevel": 15}}],
///  "apps": {"com.example.news": {"permittedTaskIdentifiers": ["com.example.news.refresh"],
///                                "backgroundModes": ["fetch", "remote-notification"]}}}
/// ```
package struct ConfigFile: Sendable {
    /// The file's flag keys as `silentpushd` arguments, each flag with its values, in the
    /// file's order.
    private var settings: [(flag: String, arguments: [String])] = []
    /// Each number the file gives a flag as an argument spelled otherwise (a duration's
    /// seconds as "3s" or "1500ms", a number of more than twenty characters in full), with the
    /// number as the file may write it: a message about that flag quotes the file's number.
    private var numbersAsWritten: [(flag: String, spelled: String, written: String)] = []
    /// What no flag expresses.
    package private(set) var topicFetchHandlers: [String: FetchHandlerChoice] = [:]
    package private(set) var registeredDevices: [String: [String]] = [:]
    /// Device state set at start (the admin API's `PATCH /v1/devices/{token}` fields).
    package private(set) var deviceStates: [String: DeviceState] = [:]
    package private(set) var deviceRegistryMode: DeviceRegistry.Mode?
    /// What each app declares for background tasks, by topic.
    package private(set) var apps: [String: AppDeclaration] = [:]
    /// Fault rules in force from the start.
    package private(set) var faults: [FaultRule] = []
    /// The path read.
    package let path: String

    /// The kind of value a flag key holds: how it is read and turned into its flag's arguments.
    package enum Kind {
        case text
        case number
        /// A whole number, or null for none.
        case numberOrNone
        case duration
        case flag
        case list
    }

    /// Each flag key, its `silentpushd` flag and what it holds.
    package static let flags: [String: (flag: String, kind: Kind)] = [
        "listen": ("--listen", .text), "listenH2C": ("--listen-h2c", .text), "admin": ("--admin", .text),
        "listenChannels": ("--listen-channels", .text), "listenChannelsH2C": ("--listen-channels-h2c", .text),
        "tlsCert": ("--tls-cert", .text), "tlsKey": ("--tls-key", .text), "clientCA": ("--client-ca", .text),
        "originCAs": ("--origin-ca", .list),
        "readyFile": ("--ready-file", .text), "maxConcurrentStreams": ("--max-concurrent-streams", .number),
        "idleTimeout": ("--idle-timeout", .duration), "shutdownGrace": ("--shutdown-grace", .duration),
        "requestTimeout": ("--request-timeout", .duration), "maxConnections": ("--max-connections", .number),
        "adminHosts": ("--admin-host", .list), "adminToken": ("--admin-token", .text),
        "authKeys": ("--auth-key", .list), "environment": ("--environment", .text), "strict": ("--strict", .flag), "fresh": ("--fresh", .flag),
        "rateLimit": ("--rate-limit", .text), "store": ("--store", .text), "clock": ("--clock", .text),
        "retain": ("--retain", .duration), "retainPushes": ("--retain-pushes", .numberOrNone),
        "profile": ("--profile", .text), "minInterval": ("--min-interval", .duration), "deadline": ("--deadline", .duration),
        "dailyBudget": ("--daily-budget", .numberOrNone), "batteryThreshold": ("--battery-threshold", .number),
        "rebootWarmup": ("--reboot-warmup", .duration), "appUsageThreshold": ("--app-usage-threshold", .duration),
        "apnsStorageLimit": ("--apns-storage-limit", .duration), "reloadBudget": ("--reload-budget", .numberOrNone),
        "activityBudget": ("--activity-budget", .numberOrNone), "activityFrequentBudget": ("--activity-frequent-budget", .numberOrNone),
        "activityOpportunisticDelay": ("--activity-opportunistic-delay", .duration),
        "activityDismissalWindow": ("--activity-dismissal-window", .duration), "activityMaxActive": ("--activity-max-active", .duration),
        "channelMessageLifetime": ("--channel-message-lifetime", .duration),
        "transferLimit": ("--transfer-limit", .number), "transferRetryDelay": ("--transfer-retry-delay", .duration),
        "transferMaxRetryDelay": ("--transfer-max-retry-delay", .duration), "transferTimeout": ("--transfer-timeout", .duration),
        "relaunchTime": ("--relaunch-time", .duration), "transferRequestTimeout": ("--transfer-request-timeout", .duration),
        "taskExpirationGrace": ("--task-expiration-grace", .duration), "taskTerminationPenalty": ("--task-termination-penalty", .duration),
        "processingTaskTime": ("--processing-task-time", .duration), "continuedTaskCapacity": ("--continued-task-capacity", .number),
        "overrunFactor": ("--overrun-factor", .number), "appUsageFactors": ("--app-usage-factors", .text),
        "maxFetches": ("--max-fetches", .number), "fetchExec": ("--fetch-exec", .text), "fetchURL": ("--fetch-url", .text),
        "fetchBodyLimit": ("--fetch-body-limit", .number), "threads": ("--threads", .number), "logLevel": ("--log-level", .text),
        "logFormat": ("--log-format", .text), "clusterShards": ("--cluster-shards", .number),
        "clusterClaimInterval": ("--cluster-claim-interval", .duration), "clusterName": ("--cluster-name", .text),
    ]

    /// The other keys.
    package static let otherKeys = ["fetchHandlers", "devices", "deviceRegistry", "apps", "faults"]

    /// The most bytes a config file holds: room for about 100,000 devices.
    package static let sizeLimit = 64 << 20

    /// Reads `path` once (a pipe, `<(envsubst < template)`, too) and checks it; throws one
    /// line naming the file, the key and the fix.
    package static func load(_ path: String) throws(ConfigFileError) -> ConfigFile {
        let bytes: [UInt8]
        do throws(FileBytes.Failure) {
            bytes = try FileBytes.read(path, limit: sizeLimit)
        } catch {
            switch error {
            case .unreadable(let problem): throw .unreadable(path: path, problem: problem)
            case .tooLarge(let limit): throw .tooLarge(path: path, limit: limit)
            }
        }
        return try parse(Data(bytes), path: path)
    }

    /// Checks a config file's bytes; `path` names it in messages.
    package static func parse(_ data: Data, path: String) throws(ConfigFileError) -> ConfigFile {
        let json = withoutComments(Array(data))
        let root: JSONValue
        do throws(JSONValue.ParseError) {
            root = try JSONValue.parse(json)
        } catch {
            let (line, column) = position(of: error.offset, in: json)
            if case .duplicateKey(let key, _) = error { throw ConfigFileError.duplicateKey(path: path, key: key, line: line, column: column) }
            throw ConfigFileError.notJSON(path: path, line: line, column: column)
        }
        guard case .object(let fields) = root else { throw ConfigFileError.notAnObject(path: path) }
        var file = ConfigFile(path: path)
        for (key, value) in fields {
            if let (flag, kind) = flags[key] {
                let given = try arguments(flag: flag, kind: kind, value: value, path: path, key: key)
                file.settings.append((flag, given))
                switch (kind, value, given.last) {
                case (.duration, .int(let number), let spelled?): file.numbersAsWritten.append((flag, spelled, "\(number)"))
                case (.duration, .double(let number), let spelled?): file.numbersAsWritten.append((flag, spelled, written(number)))
                case (_, .double(let number), let spelled?) where spelled.count > 20: file.numbersAsWritten.append((flag, spelled, written(number)))
                default: break
                }
                continue
            }
            switch key {
            case "fetchHandlers":
                guard case .object(let topics) = value else {
                    throw ConfigFileError.invalidValue(path: path, key: "fetchHandlers", expected: "an object from topics to handlers")
                }
                for (topic, handler) in topics {
                    guard AdminAPI.isTopic(topic) else {
                        throw ConfigFileError.invalidValue(
                            path: path, key: "fetchHandlers", expected: "keyed by topics (bundle IDs); '\(topic)' is not one")
                    }
                    file.topicFetchHandlers[topic] = try fetchHandler(handler, path: path, key: "fetchHandlers.\(topic)")
                }
            case "devices":
                guard case .array(let devices) = value else { throw ConfigFileError.invalidValue(path: path, key: "devices", expected: "a list") }
                var listed: Set<String> = []
                for device in devices {
                    guard case .string(let token)? = device["token"], APNsRequestValidator.isValidDeviceToken(token) else {
                        throw ConfigFileError.invalidDeviceToken(path: path)
                    }
                    // A second entry would silently replace the first one's state.
                    guard listed.insert(token.lowercased()).inserted else {
                        throw ConfigFileError.invalidValue(
                            path: path, key: "devices", expected: "one entry per device; \(token.lowercased()) is listed twice")
                    }
                    var topics: [String] = []
                    switch device["topics"] {
                    case nil: break
                    case .array(let list)?:
                        for topic in list {
                            guard case .string(let name) = topic else {
                                throw ConfigFileError.invalidValue(path: path, key: "devices[].topics", expected: "strings")
                            }
                            guard AdminAPI.isTopic(name) else {
                                throw ConfigFileError.invalidValue(
                                    path: path, key: "devices[].topics", expected: "topics (bundle IDs); '\(name)' is not one")
                            }
                            topics.append(name)
                        }
                    default: throw ConfigFileError.invalidValue(path: path, key: "devices[].topics", expected: "a list of topics")
                    }
                    file.registeredDevices[token.lowercased(), default: []] += topics
                    switch device["state"] {
                    case nil: break
                    case .object(let fields)?:
                        do {
                            let (state, unregistered) = try AdminAPI.devicePatch(fields, to: DeviceState())
                            guard unregistered == nil else {
                                throw AdminError(.unprocessableContent, "unregistered is not a state to start in")
                            }
                            file.deviceStates[token.lowercased()] = state
                        } catch let error as AdminError {
                            // The admin API's messages start with the field: "batteryLevel must be …".
                            if let range = error.message.range(of: " must be "), !error.message[..<range.lowerBound].contains(" ") {
                                throw ConfigFileError.invalidValue(
                                    path: path, key: "devices[].state.\(error.message[..<range.lowerBound])",
                                    expected: String(error.message[range.upperBound...]))
                            }
                            throw ConfigFileError.invalidValue(path: path, key: "devices[].state", expected: "device fields: \(error.message)")
                        } catch {
                            throw ConfigFileError.invalidValue(path: path, key: "devices[].state", expected: "device fields")
                        }
                    default: throw ConfigFileError.invalidValue(path: path, key: "devices[].state", expected: "an object of device fields")
                    }
                }
            case "faults":
                guard case .array(let rules) = value else {
                    throw ConfigFileError.invalidValue(path: path, key: "faults", expected: "a list of fault rules")
                }
                guard rules.count <= FaultTable.capacity else {
                    throw ConfigFileError.invalidValue(
                        path: path, key: "faults", expected: "a list of at most \(FaultTable.capacity) fault rules (it has \(rules.count))")
                }
                for (index, rule) in rules.enumerated() {
                    guard case .object(let fields) = rule else {
                        throw ConfigFileError.invalidValue(path: path, key: "faults[\(index)]", expected: "a fault rule object")
                    }
                    do {
                        file.faults.append(try FaultRule(json: fields))
                    } catch {
                        throw ConfigFileError.invalidValue(path: path, key: "faults[\(index)]", expected: "a fault rule: \(error.message)")
                    }
                }
            case "apps":
                guard case .object(let topics) = value else {
                    throw ConfigFileError.invalidValue(path: path, key: "apps", expected: "an object from topics to app declarations")
                }
                for (topic, declaration) in topics {
                    guard AdminAPI.isTopic(topic) else {
                        throw ConfigFileError.invalidValue(path: path, key: "apps", expected: "keyed by topics (bundle IDs); '\(topic)' is not one")
                    }
                    file.apps[topic] = try appDeclaration(declaration, path: path, key: "apps.\(topic)")
                }
            case "deviceRegistry":
                guard case .string(let text) = value, let mode = DeviceRegistry.Mode(rawValue: text) else {
                    throw ConfigFileError.invalidValue(path: path, key: "deviceRegistry", expected: #""acceptOnFirstUse" or "registeredOnly""#)
                }
                file.deviceRegistryMode = mode
            default:
                throw ConfigFileError.unknownKey(path: path, key: key, known: (Array(flags.keys) + otherKeys).sorted())
            }
        }
        return file
    }

    /// `number` as JSON may write it: a whole number under 1e15 in digits, `1.5`, `1e+20`.
    private static func written(_ number: Double) -> String {
        number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : "\(number)"
    }

    /// The file's flag keys as `silentpushd` arguments.
    package var arguments: [String] { settings.flatMap(\.arguments) }

    /// The file's arguments that the command line's `given` leaves standing, to be parsed
    /// before them: a flag given there replaces the file's value, a list's values
    /// (`--auth-key`, `--admin-host`, `--origin-ca`) all together, as a single value's is by
    /// the last one parsed; `--no-strict` and `--no-fresh` replace `true`; and `--fetch-exec`
    /// and `--fetch-url`, two ways of one setting, replace each other.
    package func arguments(under given: [String]) -> [String] {
        let replaced = Self.flags(in: given)
        return settings.filter { !replaced.contains($0.flag) }.flatMap(\.arguments)
    }

    /// The file's keys whose values the command line's `given` replaces, in the file's order.
    package func keys(replacedBy given: [String]) -> [String] {
        let replaced = Self.flags(in: given)
        let keyOfFlag = Dictionary(Self.flags.map { ($0.value.flag, $0.key) }, uniquingKeysWith: { first, _ in first })
        return settings.filter { replaced.contains($0.flag) }.compactMap { keyOfFlag[$0.flag] }
    }

    /// The flags `given` sets, with the settings they replace.
    private static func flags(in given: [String]) -> Set<String> {
        var replaced = Set<String>()
        for option in options(in: given) {
            replaced.insert(option.flag)
            if let other = sameSetting[option.flag] { replaced.insert(other) }
        }
        return replaced
    }

    /// The long options `given` sets, each with its value (nil for an on/off flag), read as
    /// the parser reads it: the word after an option that takes a value is that value, even
    /// when it starts with `--` (`--admin-token --x`); nothing after `--` is an option.
    package static func options(in given: [String]) -> [(flag: String, value: String?)] {
        var options: [(flag: String, value: String?)] = []
        var index = given.startIndex
        while index < given.endIndex {
            let argument = given[index]
            index += 1
            if argument == "--" { break }
            guard argument.hasPrefix("--") else { continue }
            if let equals = argument.firstIndex(of: "=") {
                options.append((String(argument[..<equals]), String(argument[argument.index(after: equals)...])))
            } else if takesNoValue.contains(argument) {
                options.append((argument, nil))
            } else {
                options.append((argument, index < given.endIndex ? given[index] : nil))
                index += 1
            }
        }
        return options
    }

    /// The options that take no value: the on/off flags, their `--no-` forms and help.
    private static let takesNoValue: Set<String> = Set(
        flags.values.filter { $0.kind == .flag }.flatMap { [$0.flag, "--no-" + $0.flag.dropFirst(2)] } + ["--help", "--version"])

    /// Flags that set what another sets.
    private static let sameSetting = [
        "--fetch-exec": "--fetch-url", "--fetch-url": "--fetch-exec", "--no-strict": "--strict", "--no-fresh": "--fresh",
    ]

    private static func arguments(flag: String, kind: Kind, value: JSONValue, path: String, key: String) throws(ConfigFileError) -> [String] {
        func invalid(_ expected: String) -> ConfigFileError { .invalidValue(path: path, key: key, expected: expected) }
        switch (kind, value) {
        case (.text, .string(let text)), (.duration, .string(let text)): return [flag, text]
        case (.number, .int(let number)), (.numberOrNone, .int(let number)): return [flag, String(number)]
        // A whole number past Int64 (`1e20`, twenty digits): the flag says its range, as on
        // the command line.
        case (.number, .double(let number)) where number.isFinite && number.rounded() == number,
            (.numberOrNone, .double(let number)) where number.isFinite && number.rounded() == number:
            return [flag, String(format: "%.0f", number)]
        case (.numberOrNone, .null): return [flag, "none"]
        case (.duration, .int(let seconds)): return [flag, "\(seconds)s"]
        // A fraction of a second, in milliseconds as a flag takes it (above zero, at least 1).
        case (.duration, .double(let seconds)) where seconds.isFinite && abs(seconds) < 1e12:
            let milliseconds = (seconds * 1000).rounded()
            return [flag, "\(Int64(seconds > 0 ? max(1, milliseconds) : milliseconds))ms"]
        // Past any flag's ceiling (1e12 s, or twenty digits): whole seconds, so the flag says
        // its most.
        case (.duration, .double(let seconds)) where seconds.isFinite:
            return [flag, String(format: "%.0fs", seconds)]
        case (.flag, .bool(let on)): return on ? [flag] : []
        case (.list, .array(let items)):
            var arguments: [String] = []
            for item in items {
                guard case .string(let text) = item else { throw invalid("a list of strings") }
                arguments += [flag, text]
            }
            return arguments
        case (.text, _): throw invalid("a string")
        case (.number, _): throw invalid("a whole number")
        case (.numberOrNone, _): throw invalid("a whole number, or null for none")
        case (.duration, _): throw invalid(#"a duration such as "30s" or "15m", or a number of seconds"#)
        case (.flag, _): throw invalid("true or false")
        case (.list, _): throw invalid("a list of strings")
        }
    }

    /// `bytes` with each `//` and `/* */` comment outside strings turned into spaces (line
    /// breaks kept), so offsets in the result are offsets in the file.
    static func withoutComments(_ bytes: [UInt8]) -> [UInt8] {
        var out = bytes
        var index = 0
        var inString = false
        let slash = UInt8(ascii: "/"), star = UInt8(ascii: "*"), newline = UInt8(ascii: "\n")
        while index < out.count {
            let byte = out[index]
            if inString {
                if byte == UInt8(ascii: "\\") {
                    index += 2
                    continue
                }
                if byte == UInt8(ascii: "\"") { inString = false }
                index += 1
                continue
            }
            if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == slash, index + 1 < out.count, out[index + 1] == slash {
                while index < out.count, out[index] != newline {
                    out[index] = UInt8(ascii: " ")
                    index += 1
                }
                continue
            } else if byte == slash, index + 1 < out.count, out[index + 1] == star {
                out[index] = UInt8(ascii: " ")
                out[index + 1] = UInt8(ascii: " ")
                index += 2
                while index < out.count, !(out[index] == star && index + 1 < out.count && out[index + 1] == slash) {
                    if out[index] != newline { out[index] = UInt8(ascii: " ") }
                    index += 1
                }
                // An unclosed comment runs to the end: the scanner then finds no value there.
                for end in index..<min(index + 2, out.count) { out[end] = UInt8(ascii: " ") }
                index += 2
                continue
            }
            index += 1
        }
        return out
    }

    /// The line and column (from 1; a column counts characters) of byte `offset` of `bytes`.
    static func position(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        let before = bytes[..<min(max(offset, 0), bytes.count)]
        let lineStart = before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0
        let line = before.count { $0 == UInt8(ascii: "\n") } + 1
        let column = String(decoding: before[lineStart...], as: UTF8.self).count + 1
        return (line, column)
    }

    /// Rewrites a flag's name in a parser's message as the file's key.
    package func describing(_ message: String) -> String {
        var text = message
        for number in numbersAsWritten where text.contains(number.flag) {
            text = text.replacingOccurrences(of: "'\(number.spelled)'", with: "'\(number.written)'")
        }
        // The longest flag first: `--admin` is the start of `--admin-token`.
        for (key, entry) in Self.flags.sorted(by: { $0.value.flag.count > $1.value.flag.count }) where text.contains(entry.flag) {
            text = text.replacingOccurrences(of: "'\(entry.flag)'", with: key).replacingOccurrences(of: entry.flag, with: key)
        }
        return "\(path): \(text)"
    }

    /// Applies what no flag expresses: per-topic handlers, registered devices, registry mode.
    package func apply(to configuration: inout ReceiverConfiguration) {
        configuration.topicFetchHandlers.merge(topicFetchHandlers) { $1 }
        configuration.registeredDevices.merge(registeredDevices) { $0 + $1 }
        configuration.deviceStates.merge(deviceStates) { $1 }
        if let deviceRegistryMode { configuration.deviceRegistryMode = deviceRegistryMode }
        configuration.apps.merge(apps) { $1 }
        configuration.faults += faults
    }

    /// `{"permittedTaskIdentifiers": [String], "backgroundModes": ["fetch" | "processing" | "remote-notification"],
    /// "broadcast": Bool, "liveActivities": {"frequentUpdates": Bool}}`.
    static func appDeclaration(_ value: JSONValue, path: String, key: String) throws(ConfigFileError) -> AppDeclaration {
        guard case .object(let fields) = value else {
            throw ConfigFileError.invalidValue(path: path, key: key, expected: #"{"permittedTaskIdentifiers": […], "backgroundModes": […]}"#)
        }
        var declaration = AppDeclaration(permittedTaskIdentifiers: [], backgroundModes: [])
        for (field, item) in fields {
            switch field {
            case "permittedTaskIdentifiers":
                guard case .array(let list) = item else {
                    throw ConfigFileError.invalidValue(path: path, key: "\(key).\(field)", expected: "a list of task identifiers")
                }
                for entry in list {
                    guard case .string(let identifier) = entry, TaskIdentifier.isValid(identifier) else {
                        throw ConfigFileError.invalidValue(
                            path: path, key: "\(key).\(field)", expected: "a list of task identifiers (each \(TaskIdentifier.rule))")
                    }
                    declaration.permittedTaskIdentifiers.append(identifier)
                }
            case "backgroundModes":
                let modes = BackgroundMode.allCases.map(\.rawValue).joined(separator: ", ")
                guard case .array(let list) = item else {
                    throw ConfigFileError.invalidValue(path: path, key: "\(key).\(field)", expected: "a list of background modes (\(modes))")
                }
                for entry in list {
                    guard case .string(let name) = entry, let mode = BackgroundMode(rawValue: name) else {
                        throw ConfigFileError.invalidValue(path: path, key: "\(key).\(field)", expected: "a list of background modes (\(modes))")
                    }
                    declaration.backgroundModes.insert(mode)
                }
            case "broadcast":
                guard case .bool(let on) = item else {
                    throw ConfigFileError.invalidValue(path: path, key: "\(key).\(field)", expected: "true or false")
                }
                declaration.broadcast = on
            case "liveActivities":
                let expected = #"{"frequentUpdates": true or false}"#
                guard case .object(let options) = item else {
                    throw ConfigFileError.invalidValue(path: path, key: "\(key).\(field)", expected: expected)
                }
                for (option, value) in options {
                    guard option == "frequentUpdates", case .bool(let on) = value else {
                        throw ConfigFileError.invalidValue(path: path, key: "\(key).\(field).\(option)", expected: expected)
                    }
                    declaration.frequentUpdates = on
                }
            default:
                throw ConfigFileError.invalidValue(
                    path: path, key: "\(key).\(field)",
                    expected: "no such field (fields: permittedTaskIdentifiers, backgroundModes, broadcast, liveActivities)")
            }
        }
        return declaration
    }

    static func fetchHandler(_ value: JSONValue, path: String, key: String) throws(ConfigFileError) -> FetchHandlerChoice {
        let shapes = #"{"exec": COMMAND}, {"url": TEMPLATE} or {"noData": true}"#
        guard case .object(let fields) = value, fields.count == 1, let (kind, argument) = fields.first else {
            throw ConfigFileError.invalidValue(path: path, key: key, expected: "one of \(shapes)")
        }
        switch (kind, argument) {
        case ("exec", .string(let command)) where !command.trimmingCharacters(in: .whitespaces).isEmpty:
            return .exec(command)
        case ("url", .string(let template)):
            do {
                return .url(try FetchURLTemplate(template))
            } catch {
                throw ConfigFileError.invalidValue(path: path, key: key, expected: "a URL template (\(error))")
            }
        case ("noData", .bool(true)):
            return .noData
        default:
            throw ConfigFileError.invalidValue(path: path, key: key, expected: "one of \(shapes)")
        }
    }
}
