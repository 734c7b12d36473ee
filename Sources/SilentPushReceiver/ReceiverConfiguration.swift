import SilentPushCore
import SilentPushStore
import SilentPushTransport

/// Everything `silentpushd` is started with; tests build one directly (port 0).
public struct ReceiverConfiguration: Sendable {
    /// TLS h2 listener (`--listen`); nil disables it.
    public var listen: ListenAddress?
    /// Cleartext h2 listener (`--listen-h2c`); nil disables it.
    public var listenH2C: ListenAddress?
    /// The channel-management API over TLS (`--listen-channels`); nil (the default)
    /// disables it.
    public var listenChannels: ListenAddress?
    /// The channel-management API in cleartext (`--listen-channels-h2c`); nil disables it.
    public var listenChannelsH2C: ListenAddress?
    /// Server certificate chain (`--tls-cert`).
    public var tlsCertificate: String
    /// Server private key (`--tls-key`).
    public var tlsKey: String
    /// CA for client certificates (`--client-ca`); nil: none asked for.
    public var clientCA: String?
    /// CAs (PEM files) trusted at the https origins of fetch handlers and background transfers,
    /// beside the system's roots (`--origin-ca`): a development origin's own CA.
    public var originCertificateAuthorities: [String] = []
    /// HTTP/2 limits.
    package var settings: H2Settings
    /// A connection on which nothing is read or answered for this long, with no request
    /// waiting for its answer, gets GOAWAY IdleTimeout (`--idle-timeout`; zero: never).
    public var idleTimeout: Duration
    /// A request whose headers and body have not all arrived this long after it opened is
    /// reset with RST_STREAM (`--request-timeout`; zero: no limit). An admin API connection
    /// that sends nothing this long is closed (zero: `idleTimeout`).
    public var requestTimeout: Duration
    /// Connections served at once (`--max-connections`); one more gets GOAWAY and is
    /// closed. Nil: derived from the open-file limit.
    public var maxConnections: Int?
    /// How long SIGTERM waits for open streams before closing what is left.
    public var shutdownGrace: Duration
    /// Where to write `{"tls":P,"h2c":P}` once bound (`--ready-file`).
    public var readyFile: String?
    /// Provider-token keys accepted (`--auth-key`); by default the dev key.
    public var authKeys: [AuthKeySpec]
    /// The APNs environment played (`--environment`).
    public var environment: APNsEnvironment
    /// Refuse what APNs tolerates with a warning (`--strict`).
    public var strict: Bool
    /// How unknown device tokens are treated.
    public var deviceRegistryMode: DeviceRegistry.Mode
    /// Device tokens registered at start, with the topics each may receive (empty: any).
    public var registeredDevices: [String: [String]]
    /// Device state set at start, over what the store held (battery, network, …).
    public var deviceStates: [String: DeviceState] = [:]
    /// An optional per-device-token limit (`--rate-limit N/DURATION`): 429 TooManyRequests past it.
    public var rateLimit: (limit: Int, window: Duration)?
    /// The admin API's HTTP/1.1 listener (`--admin`); nil disables it.
    public var admin: ListenAddress?
    /// Host names the admin API answers besides IP addresses and `localhost` (`--admin-host`).
    public var adminHosts: [String]
    /// When set, every admin route but `/healthz` and `/readyz` needs
    /// `authorization: Bearer <token>` (`--admin-token`).
    public var adminToken: String?
    /// Where pushes, wakes and device state are recorded (`--store`).
    public var store: StoreLocation
    /// Start from an empty store: a file store's previous database is renamed aside
    /// (`silentpushd --fresh`).
    public var fresh = false
    /// The cluster this receiver is one of (`--cluster-shards`); nil: it stands alone.
    /// Needs a PostgreSQL store.
    public var cluster: ClusterConfiguration?
    /// How much the store keeps (`--retain`, `--retain-pushes`).
    public var retention: Retention
    /// How often the retention pass runs (real time; tests shorten it).
    package var retentionPassInterval = Duration.seconds(10)
    /// The device clock (`--clock`).
    public var clock: DeviceClock.Mode
    /// Minimum interval, deadline and fetch cap (`--profile`, `--min-interval`, `--deadline`).
    public var wakeSettings: WakeSettings
    /// The Live Activities' budgets and lifetimes (`--profile`).
    public var liveActivities = LiveActivitySettings()
    /// The background transfers' numbers: the per-app cap, the retry delays, the resource timeout.
    public var transfers = TransferPolicy.Settings()
    /// The default fetch handler (`--fetch-exec`, `--fetch-url`); by default every wake answers noData.
    public var fetchHandler: FetchHandlerChoice
    /// Fetch handlers for particular topics (the config file's `fetchHandlers`).
    public var topicFetchHandlers: [String: FetchHandlerChoice]
    /// The largest body an HTTP fetch keeps (10 MB by default); a bigger one fails the fetch.
    public var fetchBodyLimit: Int
    /// What each app (by topic) declares for background tasks: its permitted task
    /// identifiers and background modes (the config file's `apps`). An app not here can
    /// submit no task (`notPermitted`).
    public var apps: [String: AppDeclaration]
    /// Fault rules in force from the start (the config file's `faults`; `/v1/faults` adds more):
    /// at most `FaultTable.capacity`, or the receiver does not start.
    public var faults: [FaultRule] = []

    /// The `make run` defaults: 127.0.0.1:2197 TLS, 127.0.0.1:2198 h2c, admin on
    /// 127.0.0.1:2199, the dev certificates in `certificatesDirectory`, the store in
    /// `.silentpush/`, the system clock and iOS's timings.
    public init(certificatesDirectory: String = "certs") {
        listen = ListenAddress(host: "127.0.0.1", port: 2197)
        listenH2C = ListenAddress(host: "127.0.0.1", port: 2198)
        tlsCertificate = certificatesDirectory + "/server.pem"
        tlsKey = certificatesDirectory + "/server-key.pem"
        clientCA = nil
        settings = H2Settings()
        idleTimeout = .seconds(600)
        requestTimeout = .seconds(10)
        maxConnections = nil
        shutdownGrace = .seconds(30)
        readyFile = nil
        authKeys = [.development(certificatesDirectory: certificatesDirectory)]
        environment = .sandbox
        strict = false
        deviceRegistryMode = .acceptOnFirstUse
        registeredDevices = [:]
        rateLimit = nil
        admin = ListenAddress(host: "127.0.0.1", port: 2199)
        adminHosts = []
        adminToken = nil
        store = .file(".silentpush/silentpush.sqlite")
        retention = .default
        clock = .system
        wakeSettings = WakeSettings()
        fetchHandler = .noData
        topicFetchHandlers = [:]
        fetchBodyLimit = 10 * 1024 * 1024
        apps = [:]
    }
}

extension ReceiverConfiguration {
    /// How much the store keeps: pushes older than ``maximumAge`` (device time) or past the
    /// newest ``maximumPushes`` are pruned in the background, with their wakes, and so are
    /// finished task runs and requests. A pending push is never pruned: the device holds it.
    public struct Retention: Sendable, Equatable {
        /// How long a record is kept; nil keeps it whatever its age.
        public var maximumAge: Duration?
        /// How many of the newest pushes (and task runs, and task requests) are kept; nil: all.
        public var maximumPushes: Int?

        /// A retention.
        public init(maximumAge: Duration?, maximumPushes: Int?) {
            self.maximumAge = maximumAge
            self.maximumPushes = maximumPushes
        }

        /// What a receiver keeps unless told otherwise: 7 days and 1,000,000 pushes, so one
        /// left running holds a bounded store.
        public static let `default` = Retention(maximumAge: .seconds(7 * 86_400), maximumPushes: 1_000_000)

        /// Everything, for ever.
        public static let keepEverything = Retention(maximumAge: nil, maximumPushes: nil)
    }

    /// Where a receiver records pushes, wakes and device state.
    public enum StoreLocation: Sendable, Equatable {
        /// A SQLite file, created with its directory when missing; it survives restarts.
        case file(String)
        /// In memory, gone with the process (`--store memory`, tests).
        case memory
        /// A PostgreSQL database, migrated when empty; it survives restarts and is shared by
        /// a cluster's receivers.
        case postgres(PostgresURL)

        var pushStoreLocation: PushStore.Location {
            switch self {
            case .file(let path): .file(path)
            case .memory: .memory
            case .postgres(let url): .postgres(url)
            }
        }
    }
}
