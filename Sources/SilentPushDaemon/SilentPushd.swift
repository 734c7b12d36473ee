import ArgumentParser
import Foundation
import Logging
import NIOPosix
import ServiceLifecycle
import SilentPushCore
import SilentPushReceiver
import SilentPushTransport

/// `silentpushd`'s command: its flags (and a config file's keys) parsed and checked into a
/// `ReceiverConfiguration` (`makeConfiguration`, which tests call), and the receiver run on
/// it (`main`, all the executable calls).
package struct SilentPushd: AsyncParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "silentpushd",
        abstract: "An APNs provider endpoint that plays the device: it receives silent pushes as APNs does.",
        discussion: """
            With no flags it serves TLS h2 on 127.0.0.1:2197 and cleartext h2 on 127.0.0.1:2198 with the \
            development certificate, accepts tokens signed by the development key, serves the admin API on \
            127.0.0.1:2199, and records pushes and wakes in ./.silentpush/silentpush.sqlite. The development \
            material is looked for in PREFIX/share/silentpush (installed), then in the checkout the binary \
            was built in, then in the working directory. A bad flag or file stops start-up with exit code 2.
            """,
        version: "silentpushd \(BuildInfo.version) (commit \(BuildInfo.commit))")

    @Option(help: ArgumentHelp("TLS HTTP/2 listener, HOST:PORT (port 0: any free port), or 'off'.", valueName: "host:port"))
    var listen = "127.0.0.1:2197"

    @Option(
        name: .customLong("listen-h2c"),
        help: ArgumentHelp("Cleartext HTTP/2 (prior knowledge) listener, HOST:PORT, or 'off'.", valueName: "host:port"))
    var listenH2C = "127.0.0.1:2198"

    @Option(
        name: .customLong("listen-channels"),
        help: ArgumentHelp(
            "Channel-management API (TLS HTTP/2, as APNs serves it on port 2195/2196) listener, HOST:PORT, or 'off'.",
            valueName: "host:port"))
    var listenChannels = "off"

    @Option(
        name: .customLong("listen-channels-h2c"),
        help: ArgumentHelp("Channel-management API in cleartext HTTP/2 (prior knowledge), HOST:PORT, or 'off'.", valueName: "host:port"))
    var listenChannelsH2C = "off"

    @Option(help: ArgumentHelp("Admin API (HTTP/1.1) listener, HOST:PORT, or 'off'.", valueName: "host:port"))
    var admin = "127.0.0.1:2199"

    @Option(
        name: .customLong("admin-host"),
        help: ArgumentHelp(
            "A host name the admin API answers to besides IP addresses and localhost (others get 421). Repeatable.", valueName: "name"))
    var adminHosts: [String] = []

    @Option(
        name: .customLong("admin-token"), parsing: .unconditional,
        help: ArgumentHelp(
            "Require 'authorization: Bearer TOKEN' on every admin route but /healthz, /readyz, a cluster's /v1/cluster/shards/N (a proxy's health check) and the page at / (open it as /#token=TOKEN).",
            valueName: "token"))
    var adminToken: String?

    @Option(
        name: .customLong("tls-cert"),
        help: ArgumentHelp("Server certificate chain (PEM; default: the development certificate, certs/server.pem).", valueName: "pem"))
    var tlsCert: String?

    @Option(
        name: .customLong("tls-key"),
        help: ArgumentHelp("Server private key (PEM; default: the development key, certs/server-key.pem).", valueName: "pem"))
    var tlsKey: String?

    @Option(
        name: .customLong("client-ca"),
        help: ArgumentHelp(
            "Ask TLS clients for a certificate signed by this CA (PEM): one that sends it authenticates with it, one that sends none with provider tokens, as at APNs.",
            valueName: "pem"))
    var clientCA: String?

    @Option(
        name: .customLong("origin-ca"),
        help: ArgumentHelp(
            "Also trust this CA (PEM) at the https origins of fetch handlers and background transfers, beside the system's (repeat for more).",
            valueName: "pem"))
    var originCA: [String] = []

    @Option(
        name: .customLong("ready-file"),
        help: ArgumentHelp("Once bound, write the bound ports as JSON here: {\"tls\":P,\"h2c\":P,\"admin\":P,…} (channels too).", valueName: "path"))
    var readyFile: String?

    @Option(
        name: .customLong("max-concurrent-streams"), parsing: .unconditional, help: "SETTINGS_MAX_CONCURRENT_STREAMS per connection.",
        transform: { try Self.wholeNumber($0, flag: "--max-concurrent-streams", in: 1...UInt32.max) })
    var maxConcurrentStreams: UInt32 = 1000

    @Option(
        name: .customLong("idle-timeout"), parsing: .unconditional,
        help: ArgumentHelp(
            "Close connections that read and answer nothing this long with GOAWAY IdleTimeout (e.g. 10m, 0 = never).", valueName: "duration"))
    var idleTimeout = "10m"

    @Option(
        name: .customLong("request-timeout"), parsing: .unconditional,
        help: ArgumentHelp(
            "Reset (RST_STREAM) a request whose headers and body have not all arrived this long after it opened, or whose answer the client's flow-control window holds back this long; a connection's handshake and preface get as long (0 = no limit). An admin API connection that sends nothing this long, or whose request has not all arrived this long after it was ready for one, is closed (0: --idle-timeout).",
            valueName: "duration"))
    var requestTimeout = "10s"

    @Option(
        name: .customLong("max-connections"), parsing: .unconditional,
        help: ArgumentHelp(
            "HTTP/2 connections served at once; one more gets GOAWAY and is closed (default: from the open-file limit).", valueName: "n"),
        transform: { try Self.wholeNumber($0, flag: "--max-connections", in: Self.maxConnectionsRange) })
    var maxConnections: Int?

    @Option(
        name: .customLong("shutdown-grace"), parsing: .unconditional,
        help: ArgumentHelp(
            "On SIGTERM, SIGINT or SIGHUP, how long the drain may take, from the signal: open streams, then running fetches and task runs; what still runs then is cut.",
            valueName: "duration"))
    var shutdownGrace = "30s"

    @Option(
        name: .customLong("auth-key"),
        help: ArgumentHelp(
            "Accept provider tokens signed by this key: KEYID:TEAMID:PATH[:sandbox|production], PATH a .p8 or public key PEM. Repeatable; default: the dev key in certs/.",
            valueName: "keyid:teamid:path"))
    var authKeys: [String] = []

    @Option(
        help: ArgumentHelp("The APNs environment played: sandbox (the default) or production.", valueName: "env"),
        completion: .list(APNsEnvironment.allCases.map(\.rawValue)), transform: { try Self.choice($0, flag: "--environment") })
    var environment: APNsEnvironment = .sandbox

    @Flag(inversion: .prefixedNo, help: "Refuse what APNs tolerates with a warning (priority 10 or an alert on a background push).")
    var strict = false

    @Option(
        name: .customLong("rate-limit"), parsing: .unconditional,
        help: ArgumentHelp("At most N pushes per DURATION to one device token, else 429 TooManyRequests (e.g. 10/1s).", valueName: "n/duration"))
    var rateLimit: String?

    @Option(
        help: ArgumentHelp(
            "Where pushes, wakes and device state are recorded: a SQLite file, 'memory', or a PostgreSQL database (postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE; the password may come from PGPASSWORD).",
            valueName: "path|url"))
    var store = ".silentpush/silentpush.sqlite"

    @Flag(
        inversion: .prefixedNo,
        help:
            "Start from an empty store: the previous store file is renamed aside (STORE.YYYYMMDD-HHMMSS) and kept; a PostgreSQL store's tables are emptied."
    )
    var fresh = false

    @Option(
        name: .customLong("cluster-shards"), parsing: .unconditional,
        help: ArgumentHelp(
            "Run as one of a cluster's receivers on a shared PostgreSQL --store: devices fall into N shards (the same N on every receiver), each owned by one receiver.",
            valueName: "n"),
        transform: { try Self.wholeNumber($0, flag: "--cluster-shards", in: ClusterConfiguration.shardRange) })
    var clusterShards: Int?

    @Option(
        name: .customLong("cluster-claim-interval"), parsing: .unconditional,
        help: ArgumentHelp(
            "How often a clustered receiver claims free shards and checks its own: a dead receiver's shards stay unowned for one or two of these (2s by default).",
            valueName: "duration"))
    var clusterClaimInterval: String?

    @Option(
        name: .customLong("cluster-name"),
        help: ArgumentHelp("This receiver's name in GET /v1/cluster (by default HOST:PID).", valueName: "name"))
    var clusterName: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "How long the store keeps pushes, wakes and task runs (device time; pruned in the background); 'none' keeps them for ever.",
            valueName: "duration"))
    var retain = "7d"

    @Option(
        name: .customLong("retain-pushes"), parsing: .unconditional,
        help: ArgumentHelp("How many of the newest pushes the store keeps (and task runs); 'none' for no limit.", valueName: "n"))
    var retainPushes = "1000000"

    @Option(
        help: ArgumentHelp("The device clock: system (the default), or manual (moved only by POST /v1/clock/advance).", valueName: "clock"),
        completion: .list(DeviceClock.Mode.allCases.map(\.rawValue)), transform: { try Self.choice($0, flag: "--clock") })
    var clock: DeviceClock.Mode = .system

    @Option(
        help: ArgumentHelp(
            "The device's throttling: ios (the default; as observed: 15m between wakes, 30s deadline), fast (1s between wakes), debugger (no throttling), strict (Apple's two or three an hour: 20m between wakes, 72 launches a day) or off (every push wakes at once, but priority 1, which rides the next wake).",
            valueName: "profile"),
        completion: .list(WakeProfile.allCases.map(\.rawValue)), transform: { try Self.choice($0, flag: "--profile") })
    var profile: WakeProfile = .ios

    @Option(
        name: .customLong("daily-budget"), parsing: .unconditional,
        help: ArgumentHelp(
            "Background launches per device per rolling 24 hours (overrides --profile; 'none' for no budget).", valueName: "n"))
    var dailyBudget: String?

    @Option(
        name: .customLong("app-usage-threshold"), parsing: .unconditional,
        help: ArgumentHelp(
            "An app not opened for this long is not launched in the background (default 14d; 'none': no limit).", valueName: "duration"))
    var appUsageThreshold: String?

    @Option(
        name: .customLong("apns-storage-limit"), parsing: .unconditional,
        help: ArgumentHelp("The longest APNs keeps a push for an offline device (default 30d).", valueName: "duration"))
    var apnsStorageLimit: String?

    @Option(
        name: .customLong("reboot-warmup"), parsing: .unconditional,
        help: ArgumentHelp("After POST /v1/devices/{token}/reboot, no background launch for this long (default 0).", valueName: "duration"))
    var rebootWarmup: String?

    @Option(
        name: .customLong("reload-budget"), parsing: .unconditional,
        help: ArgumentHelp(
            "Reloads each app's widgets (and, apart, its controls) make by push per device per rolling 24 hours (assumed; default 70, none under --profile debugger or off; 'none': no budget).",
            valueName: "n"))
    var reloadBudget: String?

    @Option(
        name: .customLong("activity-budget"), parsing: .unconditional,
        help: ArgumentHelp(
            "Priority-10 Live Activity updates an app takes per device per hour (assumed; default 10, none under --profile debugger and off; 'none': no budget).",
            valueName: "n"))
    var activityBudget: String?

    @Option(
        name: .customLong("activity-frequent-budget"), parsing: .unconditional,
        help: ArgumentHelp(
            "The same for an app with NSSupportsLiveActivitiesFrequentUpdates (assumed; default 120, none under --profile debugger and off; 'none': no budget).",
            valueName: "n"))
    var activityFrequentBudget: String?

    @Option(
        name: .customLong("activity-opportunistic-delay"), parsing: .unconditional,
        help: ArgumentHelp(
            "How long a priority 5 or 1 Live Activity update waits for its opportunity (assumed; default 15m; 1s under --profile fast, 0 under debugger and off).",
            valueName: "duration"))
    var activityOpportunisticDelay: String?

    @Option(
        name: .customLong("activity-dismissal-window"), parsing: .unconditional,
        help: ArgumentHelp("How long an ended Live Activity stays on the Lock Screen at most (Apple: 4h).", valueName: "duration"))
    var activityDismissalWindow: String?

    @Option(
        name: .customLong("activity-max-active"), parsing: .unconditional,
        help: ArgumentHelp("How long a Live Activity stays active before the system ends it (Apple: 8h).", valueName: "duration"))
    var activityMaxActive: String?

    @Option(
        name: .customLong("channel-message-lifetime"), parsing: .unconditional,
        help: ArgumentHelp(
            "How long a Most Recent Message Stored channel keeps its latest broadcast (Apple: 8h).", valueName: "duration"))
    var channelMessageLifetime: String?

    @Option(
        name: .customLong("transfer-limit"), parsing: .unconditional,
        help: ArgumentHelp(
            "Background transfers of one app not yet ended, at most; more are refused (assumed; default 100).", valueName: "n"),
        transform: { try Self.wholeNumber($0, flag: "--transfer-limit", in: 1...TransferPolicy.Settings.maximumCap) })
    var transferLimit: Int?

    @Option(
        name: .customLong("transfer-retry-delay"), parsing: .unconditional,
        help: ArgumentHelp(
            "How long a transfer cut off waits before its next try, doubled for each later one (assumed; default 60s).",
            valueName: "duration"))
    var transferRetryDelay: String?

    @Option(
        name: .customLong("transfer-max-retry-delay"), parsing: .unconditional,
        help: ArgumentHelp("The longest a transfer waits between tries (assumed; default 1h).", valueName: "duration"))
    var transferMaxRetryDelay: String?

    @Option(
        name: .customLong("transfer-timeout"), parsing: .unconditional,
        help: ArgumentHelp(
            "How long a transfer may take, waits included, before it fails (Apple's timeoutIntervalForResource: 7d).", valueName: "duration"))
    var transferTimeout: String?

    @Option(
        name: .customLong("relaunch-time"), parsing: .unconditional,
        help: ArgumentHelp(
            "How long an app relaunched for its background session's events has to call the completion handler (assumed; default 30s).",
            valueName: "duration"))
    var relaunchTime: String?

    @Option(
        name: .customLong("transfer-request-timeout"), parsing: .unconditional,
        help: ArgumentHelp(
            "How long a transfer's try waits to connect or for the origin's next bytes before it is cut off (Apple's timeoutIntervalForRequest: 60s).",
            valueName: "duration"))
    var transferRequestTimeout: String?

    @Option(
        name: .customLong("task-expiration-grace"), parsing: .unconditional,
        help: ArgumentHelp(
            "How long a background task or relaunch has, after its expiration handler, to complete before it is terminated (assumed; default 5s).",
            valueName: "duration"))
    var taskExpirationGrace: String?

    @Option(
        name: .customLong("task-termination-penalty"), parsing: .unconditional,
        help: ArgumentHelp(
            "How long an app's later task launches and relaunches wait after one of its runs is terminated; 0: none (assumed; default 1h).",
            valueName: "duration"))
    var taskTerminationPenalty: String?

    @Option(
        name: .customLong("processing-task-time"), parsing: .unconditional,
        help: ArgumentHelp(
            "How long a processing task runs before its expiration handler is called (Apple: several minutes; assumed 5m).",
            valueName: "duration"))
    var processingTaskTime: String?

    @Option(
        name: .customLong("continued-task-capacity"), parsing: .unconditional,
        help: ArgumentHelp("Continued processing tasks running at once per device; more queue or fail (assumed; default 2).", valueName: "n"),
        transform: { try Self.wholeNumber($0, flag: "--continued-task-capacity", in: 1...WakeSettings.maximumContinuedTaskCapacity) })
    var continuedTaskCapacity: Int?

    @Option(
        name: .customLong("overrun-factor"), parsing: .unconditional,
        help: ArgumentHelp(
            "After a wake that overran its deadline, the next interval is this many times the minimum (assumed; default 2).", valueName: "n"),
        transform: { try Self.wholeNumber($0, flag: "--overrun-factor", in: 1...WakeSettings.maximumOverrunFactor) })
    var overrunFactor: Int?

    @Option(
        name: .customLong("app-usage-factors"), parsing: .unconditional,
        help: ArgumentHelp(
            "An app last opened over a day ago waits WEEK times the interval and gets 1/WEEK of the daily budget; over a week ago, OLDER (assumed; default 2,4).",
            valueName: "week,older"))
    var appUsageFactors: String?

    @Option(
        name: .customLong("battery-threshold"), parsing: .unconditional,
        help: ArgumentHelp("Below this battery level, when not charging, priority-5 wakes wait (percent; default 20).", valueName: "percent"),
        transform: {
            try Self.wholeNumber(
                $0, flag: "--battery-threshold", expected: WholeNumberProblem.describe(WakeSettings.batteryThresholdRange) + " (percent)")
        })
    var batteryThreshold: Int?

    @Option(
        name: .customLong("min-interval"), parsing: .unconditional,
        help: ArgumentHelp("Least time from one wake of an app to its next (overrides --profile).", valueName: "duration"))
    var minInterval: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("How long a wake's fetch handler may run before it is cancelled (overrides --profile).", valueName: "duration"))
    var deadline: String?

    @Option(
        name: .customLong("max-fetches"), parsing: .unconditional,
        help: "Fetch handlers running at once across all devices (default: the profile's, \(WakeSettings.ios.maximumConcurrentFetches ?? 0)).",
        transform: { try Self.wholeNumber($0, flag: "--max-fetches", in: WakeSettings.fetchCapRange) })
    var maxFetches: Int?

    @Option(
        name: .customLong("fetch-exec"),
        help: ArgumentHelp(
            "Run this shell command for each wake: the payload on stdin, SILENTPUSH_* variables, its last line newData, noData or failed.",
            valueName: "command"))
    var fetchExec: String?

    @Option(
        name: .customLong("fetch-url"),
        help: ArgumentHelp(
            "GET this URL for each wake ({token}, {topic}, {key} from the payload); a changed body is newData, 304 or the same body noData.",
            valueName: "template"))
    var fetchURL: String?

    @Option(
        name: .customLong("fetch-body-limit"), parsing: .unconditional,
        help: ArgumentHelp("The largest body a --fetch-url fetch keeps, in bytes (default 10 MB).", valueName: "bytes"),
        transform: { try Self.wholeNumber($0, flag: "--fetch-body-limit", expected: "a positive number of bytes") })
    var fetchBodyLimit: Int?

    @Option(
        help: ArgumentHelp(
            "A JSON config file: any flag as a camelCase key, plus fetchHandlers, devices, deviceRegistry, apps and faults; flags override it.",
            valueName: "file"))
    var config: String?

    @Option(
        parsing: .unconditional, help: "Event-loop threads (default: one per core).",
        transform: { try Self.wholeNumber($0, flag: "--threads", in: Self.threadsRange) })
    var threads: Int?

    @Option(
        name: .customLong("log-level"), help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"),
        completion: .list(Logger.Level.allCases.map(\.rawValue)), transform: { try Self.choice($0, flag: "--log-level") })
    var logLevel: Logger.Level = .info

    @Option(
        name: .customLong("log-format"),
        help: ArgumentHelp(
            "text (one line per event, for people) or json (one object per line, the same dotted keys, for a log pipeline).", valueName: "format"))
    var logFormat: LogFormat = .text

    /// How log lines are written.
    enum LogFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    /// The case of `Choice` that `text` names, or the one line that lists them.
    static func choice<Choice: RawRepresentable & CaseIterable>(_ text: String, flag: String) throws -> Choice
    where Choice.RawValue == String {
        if let choice = Choice(rawValue: text) { return choice }
        let names = Choice.allCases.map(\.rawValue)
        let listed = names.count == 2 ? names.joined(separator: " or ") : names.joined(separator: ", ")
        throw ValidationError("\(flag) '\(text)' is not \(listed)")
    }

    package init() {}

    package func validate() throws {
        // The development material is looked for at run: here (and for a config file's
        // values alone) only what was given is checked.
        _ = try makeConfiguration(material: DevelopmentMaterial(root: "certs"), searched: { "" })
        if let threads, !Self.threadsRange.contains(threads) {
            throw ValidationError("--threads must be from \(WholeNumberProblem.describe(Self.threadsRange))")
        }
    }

    func makeConfiguration() throws -> ReceiverConfiguration {
        try makeConfiguration(material: Platform.developmentMaterial(), searched: { Platform.developmentMaterialSearched })
    }

    /// The configuration, with the development material at `material` (nil: not found;
    /// `searched` says where it was looked for).
    package func makeConfiguration(material: DevelopmentMaterial?, searched: () -> String) throws -> ReceiverConfiguration {
        var configuration = ReceiverConfiguration(certificatesDirectory: material?.certificates ?? "certs")
        if let config {
            // Its flag keys were parsed with the command line (see `main`); this is the rest.
            do throws(ConfigFileError) {
                let file = if let read = Self.readConfig, read.path == config { read.file } else { try ConfigFile.load(config) }
                file.apply(to: &configuration)
            } catch {
                throw ValidationError(Self.configFileMessage(error))
            }
        }
        configuration.listen = try Self.address(listen, flag: "--listen")
        configuration.listenH2C = try Self.address(listenH2C, flag: "--listen-h2c")
        configuration.listenChannels = try Self.address(listenChannels, flag: "--listen-channels")
        configuration.listenChannelsH2C = try Self.address(listenChannelsH2C, flag: "--listen-channels-h2c")
        configuration.admin = try Self.address(admin, flag: "--admin")
        if configuration.listen != nil || configuration.listenChannels != nil, tlsCert == nil || tlsKey == nil, material == nil {
            // The one of the pair given stands; the other was looked for in the development material.
            let missing =
                tlsCert == nil && tlsKey == nil ? "pass --tls-cert and --tls-key" : tlsCert == nil ? "pass --tls-cert too" : "pass --tls-key too"
            throw ValidationError("the development certificate was not found (\(searched())): \(missing), or --listen off")
        }
        if let tlsCert { configuration.tlsCertificate = try Self.readable(tlsCert, flag: "--tls-cert") }
        if let tlsKey { configuration.tlsKey = try Self.readable(tlsKey, flag: "--tls-key") }
        configuration.clientCA = try clientCA.map { try Self.readable($0, flag: "--client-ca") }
        configuration.originCertificateAuthorities = try originCA.map { try Self.readable($0, flag: "--origin-ca") }
        configuration.readyFile = readyFile
        guard maxConcurrentStreams >= 1 else { throw ValidationError("--max-concurrent-streams must be at least 1") }
        configuration.settings.maxConcurrentStreams = maxConcurrentStreams
        configuration.idleTimeout = try Self.duration(idleTimeout, flag: "--idle-timeout", atMost: .days(30))
        configuration.requestTimeout = try Self.duration(requestTimeout, flag: "--request-timeout", atMost: .days(1))
        if let maxConnections {
            guard Self.maxConnectionsRange.contains(maxConnections) else {
                throw ValidationError("--max-connections must be from \(WholeNumberProblem.describe(Self.maxConnectionsRange))")
            }
            configuration.maxConnections = maxConnections
        }
        // A Host header's name is compared without its port, so a value with one would never match.
        if let bad = adminHosts.first(where: { name in
            name.isEmpty || name.utf8.count > 253
                || !name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "." || $0 == "_") }
        }) {
            throw ValidationError(
                "--admin-host '\(bad)' is not a host name: give the name alone, with no scheme, port or path (e.g. admin.example.com)")
        }
        configuration.adminHosts = adminHosts
        if let adminToken {
            // Visible ASCII only, as pushsend sends it: a control character cannot go in a header.
            guard !adminToken.isEmpty, adminToken.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw ValidationError("--admin-token must be printable ASCII with no spaces")
            }
            configuration.adminToken = adminToken
        }
        configuration.shutdownGrace = try Self.duration(shutdownGrace, flag: "--shutdown-grace", atMost: .days(1))
        if !authKeys.isEmpty {
            configuration.authKeys = try authKeys.map { text in
                guard let spec = AuthKeySpec(parsing: text) else {
                    throw ValidationError("--auth-key '\(text)' is not KEYID:TEAMID:PATH[:sandbox|production]")
                }
                // PATH may hold a colon: only a file that is not there, and is there without
                // what follows its last colon, has a mistyped environment.
                if let colon = spec.path.lastIndex(of: ":"), !FileManager.default.fileExists(atPath: spec.path),
                    FileManager.default.fileExists(atPath: String(spec.path[..<colon]))
                {
                    let suffix = spec.path[spec.path.index(after: colon)...]
                    throw ValidationError("--auth-key '\(text)': '\(suffix)' is not sandbox or production (the key's environment)")
                }
                _ = try Self.readable(spec.path, flag: "--auth-key")
                return spec
            }
        } else if material == nil {
            throw ValidationError("the development provider key was not found (\(searched())): pass --auth-key KEYID:TEAMID:PATH")
        }
        configuration.environment = environment
        configuration.strict = strict
        if let rateLimit {
            let parts = rateLimit.split(separator: "/", maxSplits: 1).map(String.init)
            guard parts.count == 2, let limit = Int(parts[0]), limit > 0, let window = Duration(parsing: parts[1]), window > .zero,
                window <= .days(1)
            else {
                throw ValidationError("--rate-limit '\(rateLimit)' is not N/DURATION with DURATION at most 1 day (e.g. 10/1s)")
            }
            configuration.rateLimit = (limit, window)
        }
        configuration.store = try Self.storeLocation(store)
        configuration.fresh = fresh
        if let clusterShards {
            guard ClusterConfiguration.shardRange.contains(clusterShards) else {
                throw ValidationError("--cluster-shards must be a whole number from 1 to \(ClusterConfiguration.shardRange.upperBound)")
            }
            guard case .postgres = configuration.store else {
                throw ValidationError("--cluster-shards needs a PostgreSQL --store (postgres://USER@HOST:PORT/DATABASE) that the receivers share")
            }
            guard !fresh else {
                throw ValidationError("--fresh cannot empty a store a cluster shares: stop every receiver and empty it, or POST /v1/reset")
            }
            let interval =
                try clusterClaimInterval.map {
                    try Self.duration($0, flag: "--cluster-claim-interval", atMost: ClusterConfiguration.claimIntervalRange.upperBound)
                } ?? ClusterConfiguration.defaultClaimInterval
            guard interval >= ClusterConfiguration.claimIntervalRange.lowerBound else {
                throw ValidationError("--cluster-claim-interval must be at least \(ClusterConfiguration.claimIntervalLimits.shortest)")
            }
            if let clusterName, clusterName.isEmpty || clusterName.utf8.count > 200 {
                throw ValidationError("--cluster-name must be 1 to 200 bytes")
            }
            configuration.cluster = ClusterConfiguration(shards: clusterShards, claimInterval: interval, name: clusterName)
        } else if let flag = [(clusterClaimInterval, "--cluster-claim-interval"), (clusterName, "--cluster-name")].first(where: { $0.0 != nil })?.1 {
            throw ValidationError("\(flag) goes with --cluster-shards: give both, or neither")
        }
        configuration.retention = ReceiverConfiguration.Retention(
            maximumAge: try Self.noneOr(retain) { text in
                let age = try Self.duration(text, flag: "--retain", atMost: .days(36500))
                guard age > .zero else { throw ValidationError("--retain must be more than 0 (e.g. 7d), or none") }
                return age
            },
            maximumPushes: try Self.noneOr(retainPushes) { text in
                guard let count = Int(text), (1...1_000_000_000).contains(count) else {
                    throw ValidationError("--retain-pushes must be a whole number from 1 to 1000000000, or none")
                }
                return count
            })
        configuration.clock = clock
        configuration.wakeSettings = profile.settings
        configuration.liveActivities = profile.liveActivities
        if let dailyBudget {
            configuration.wakeSettings.dailyBudget = try Self.noneOr(dailyBudget) { text in
                guard let budget = Int(text), WakeSettings.budgetRange.contains(budget) else {
                    throw ValidationError(
                        "--daily-budget must be a whole number from \(WholeNumberProblem.describe(WakeSettings.budgetRange)), or none")
                }
                return budget
            }
        }
        try applyLiveActivityOptions(to: &configuration)
        if let appUsageThreshold {
            configuration.wakeSettings.appUsageThreshold = try Self.noneOr(appUsageThreshold) { text in
                let threshold = try Self.duration(text, flag: "--app-usage-threshold", atMost: WakeSettings.longestAppUsageThreshold)
                guard threshold > .zero else { throw ValidationError("--app-usage-threshold must be more than 0 (e.g. 14d), or none") }
                return threshold
            }
        }
        if let apnsStorageLimit {
            configuration.wakeSettings.apnsStorageLimit = try Self.duration(
                apnsStorageLimit, flag: "--apns-storage-limit", atMost: WakeSettings.longestAPNsStorageLimit)
        }
        if let rebootWarmup {
            // Duration(parsing:) refuses negative spans, so only the bound needs checking.
            configuration.wakeSettings.rebootWarmup = try Self.duration(
                rebootWarmup, flag: "--reboot-warmup", atMost: WakeSettings.longestRebootWarmup)
        }
        if let batteryThreshold {
            guard WakeSettings.batteryThresholdRange.contains(batteryThreshold) else {
                throw ValidationError("--battery-threshold must be from \(WholeNumberProblem.describe(WakeSettings.batteryThresholdRange)) (percent)")
            }
            configuration.wakeSettings.batteryThreshold = batteryThreshold
        }
        if let minInterval {
            let interval = try Self.duration(minInterval, flag: "--min-interval", atMost: WakeSettings.longestMinimumInterval)
            guard interval >= .zero else { throw ValidationError("--min-interval must not be negative") }
            configuration.wakeSettings.minimumInterval = interval
        }
        if let deadline {
            let limit = try Self.duration(deadline, flag: "--deadline", atMost: WakeSettings.longestDeadline)
            guard limit > .zero else { throw ValidationError("--deadline must be more than 0 (e.g. 30s)") }
            configuration.wakeSettings.deadline = limit
        }
        if let maxFetches {
            guard WakeSettings.fetchCapRange.contains(maxFetches) else {
                throw ValidationError("--max-fetches must be from \(WholeNumberProblem.describe(WakeSettings.fetchCapRange))")
            }
            configuration.wakeSettings.maximumConcurrentFetches = maxFetches
        }
        if fetchExec != nil, fetchURL != nil { throw ValidationError("give --fetch-exec or --fetch-url, not both") }
        if let fetchExec {
            guard !fetchExec.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("--fetch-exec needs a command") }
            configuration.fetchHandler = .exec(fetchExec)
        }
        if let fetchURL {
            do {
                configuration.fetchHandler = .url(try FetchURLTemplate(fetchURL))
            } catch {
                throw ValidationError("--fetch-url: \(error)")
            }
        }
        if let fetchBodyLimit {
            guard fetchBodyLimit > 0 else { throw ValidationError("--fetch-body-limit must be a positive number of bytes") }
            configuration.fetchBodyLimit = fetchBodyLimit
        }
        return configuration
    }

    package func run() async throws {
        let level = logLevel
        let format = logFormat
        LoggingSystem.bootstrap { label in
            switch format {
            case .text:
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            case .json:
                var handler = JSONLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
        }
        let logger = Logger(label: "silentpushd")
        if let read = Self.readConfig, !read.replaced.isEmpty {
            logger.info("the command line replaces \(read.path)'s \(read.replaced.joined(separator: ", "))")
        }
        let group = threads.map { MultiThreadedEventLoopGroup(numberOfThreads: $0) } ?? MultiThreadedEventLoopGroup.singleton
        let receiver = try await Receiver(try makeConfiguration(), group: group, logger: logger)
        let services = ServiceGroup(
            configuration: .init(
                services: [receiver], gracefulShutdownSignals: [.sigterm, .sigint, .sighup], logger: logger))
        try await services.run()
        logger.info("silentpushd stopped")
    }

    /// `--store`: 'memory', a PostgreSQL URL (its password from the URL or `PGPASSWORD`), or
    /// a SQLite file's path.
    static func storeLocation(_ text: String) throws -> ReceiverConfiguration.StoreLocation {
        if text == "memory" { return .memory }
        guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") else {
            // A URL of another scheme, or a PostgreSQL one mistyped (`postgresql:/…`), is not a
            // file to create: its path would hold its password.
            let scheme = text.prefix { $0 != ":" }
            let looksLikeURL =
                text.hasPrefix(scheme + "://") && !scheme.isEmpty && scheme.allSatisfy { $0.isLetter || $0.isNumber || "+-.".contains($0) }
            let fix = "give postgres://USER@HOST:PORT/DATABASE, or a SQLite file's path (one named so: start it with ./)"
            if looksLikeURL {
                // Shown without what comes before its host: a user, a password, or both.
                let rest = text.dropFirst(scheme.count + 3)
                let host = rest.split(separator: "@", omittingEmptySubsequences: false).last ?? ""
                let shown = text[..<rest.startIndex] + (host.count < rest.count ? "***@" : "") + host.prefix { $0 != "?" }
                throw ValidationError("--store '\(shown)' is not a PostgreSQL URL: \(fix)")
            }
            if text.lowercased().hasPrefix("postgres"), text.contains(":"), text.contains("@") {
                // Not echoed: with no '//', where its password ends cannot be told.
                throw ValidationError("--store looks like a PostgreSQL URL without '//' after its scheme: \(fix)")
            }
            return .file(text)
        }
        do {
            return .postgres(try PostgresURL(text, environmentPassword: ProcessInfo.processInfo.environment["PGPASSWORD"]))
        } catch {
            throw ValidationError("--store: \(error.description)")
        }
    }

    static func address(_ text: String, flag: String) throws -> ListenAddress? {
        if text == "off" { return nil }
        guard let address = ListenAddress(parsing: text) else {
            throw ValidationError("\(flag) '\(text)' is not HOST:PORT (e.g. 127.0.0.1:2197, [::1]:0) or 'off'")
        }
        return address
    }

    /// `path`, once it names a file this process can read; else why not, naming `flag`.
    static func readable(_ path: String, flag: String) throws -> String {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        let problem =
            !exists
            ? "no such file"
            : isDirectory.boolValue ? "it is a directory" : !FileManager.default.isReadableFile(atPath: path) ? "permission denied" : nil
        guard let problem else { return path }
        throw ValidationError("\(flag): cannot read '\(path)' (\(problem))")
    }

    /// nil for `none` (the setting switched off), else the value `parse` reads.
    static func noneOr<Value>(_ text: String, _ parse: (String) throws -> Value) throws -> Value? {
        text == "none" ? nil : try parse(text)
    }

    static func duration(_ text: String, flag: String, atMost limit: Duration) throws -> Duration {
        let seconds = limit.components.seconds
        let most = seconds >= 86_400 ? "\(seconds / 86_400) day(s)" : seconds >= 3600 ? "\(seconds / 3600) hour(s)" : "\(seconds) second(s)"
        switch Duration.parsed(text) {
        case .success(let duration) where duration <= limit: return duration
        // Written well but too long, however long: the same line.
        case .success, .failure(.tooLong): throw ValidationError("\(flag) '\(text)' is longer than \(most)")
        case .failure(.malformed):
            // The next option where the value belongs (the parser takes any word after the flag).
            if text.hasPrefix("--") || text.isEmpty { throw ValidationError("\(flag) needs a duration (e.g. 500ms, 30s, 15m, 2h, 14d)") }
            if text.hasPrefix("-") { throw ValidationError("\(flag) '\(text)' is negative (e.g. 500ms, 30s, 15m, 2h, 14d)") }
            throw ValidationError("\(flag) '\(text)' is not a duration (e.g. 500ms, 30s, 15m, 2h, 14d)")
        }
    }

    /// The config file `main` read, with its path: `makeConfiguration` (run by the parser's
    /// `validate()`, then by `run()`) takes it from here, so the file is read once. A pipe
    /// (`--config <(envsubst < template)`) gives its bytes only once. `replaced`: the file's
    /// keys the command line gives again, which `run()` names in a log line.
    @TaskLocal static var readConfig: (path: String, file: ConfigFile, replaced: [String])?

    /// One line for a config file that cannot be used; one that cannot be read names the flag.
    static func configFileMessage(_ error: ConfigFileError) -> String {
        if case .unreadable = error { return "\(error) (check --config)" }
        return "\(error)"
    }

    /// The config file named on the command line, if any (`--config FILE` or `--config=FILE`;
    /// the last given, as the parser takes it; not a word that is another option's value).
    /// An option where the file belongs (`--config --strict`) is none: the parser then says
    /// the value is missing.
    static func configPath(in arguments: [String]) -> String? {
        ConfigFile.options(in: arguments).last { $0.flag == "--config" }?.value.flatMap { $0.hasPrefix("--") ? nil : $0 }
    }

    /// Parses the command line (after the config file it names) and runs the receiver. Every
    /// failure to start exits 2 with one line; help exits 0.
    package static func main() async {
        let given = Array(CommandLine.arguments.dropFirst())
        // Before the parser sees it: its messages quote an argument, and this one may be a private key.
        if PEMContents.found(inAnyOf: given) { fail(PEMContents.refusal) }
        var arguments = given
        var read: (path: String, file: ConfigFile, replaced: [String])?
        if let path = configPath(in: given) {
            do {
                let file = try ConfigFile.load(path)
                read = (path, file, file.keys(replacedBy: given))
                if PEMContents.found(inAnyOf: file.arguments) { fail("\(path): \(PEMContents.refusal)") }
                // The file's values, checked on their own so a bad one is named by its key.
                do {
                    _ = try parseAsRoot(file.arguments)
                } catch {
                    fail(file.describing(line(for: error)))
                }
                arguments = file.arguments(under: given) + given  // the command line wins
            } catch {
                // Every other config file error names the file already.
                fail(Self.configFileMessage(error))
            }
        }
        do {
            try await $readConfig.withValue(read) {
                let command = try parseAsRoot(arguments)
                guard let runnable = command as? SilentPushd else {
                    print(helpMessage())
                    return
                }
                try await runnable.run()
            }
        } catch {
            if exitCode(for: error) == .success {
                print(fullMessage(for: error))
                Foundation.exit(0)
            }
            guard let error = error as? ReceiverStartError else { fail(line(for: error)) }
            fail(startMessage(error, config: read?.file, given: given))
        }
    }

    /// A start-up failure's line; one about a flag whose value the config file gave (a key
    /// file that does not parse, an address no interface has) names the file and its key.
    static func startMessage(_ error: ReceiverStartError, config: ConfigFile?, given: [String]) -> String {
        let message = error.description
        guard let config else { return message }
        let supplied = Set(ConfigFile.options(in: config.arguments(under: given)).map(\.flag))
        let named = supplied.contains { flag in
            message.ranges(of: flag).contains { range in
                message[range.upperBound...].first.map { !($0.isLetter || $0.isNumber || $0 == "-") } ?? true
            }
        }
        return named ? config.describing(message) : message
    }

    /// The parser's message for `error`, without the prefix it puts before a choice's own
    /// line ("The value 'x' is invalid for '--clock <clock>': "), which says the same.
    static func line(for error: any Error) -> String {
        let text = message(for: error)
        guard text.hasPrefix("The value '"), let end = text.range(of: ">': ") else { return text }
        return String(text[end.upperBound...])
    }

    static func fail(_ message: String) -> Never {
        // A URL's password is never shown, also where the parser quotes an argument back
        // ("Unexpected argument 'postgres://user:password@…'").
        let shown = TerminalLine.escaped(PostgresURL.maskingPasswords(in: message))
        try? FileHandle.standardError.write(contentsOf: Data("silentpushd: \(shown)\n".utf8))
        Foundation.exit(2)
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
