/// A background transfer as stored: what the app handed the device, where it is, and how it
/// ended (`GET /v1/transfers`).
public struct TransferRecord: Sendable, Equatable {
    /// Where a transfer is, as the admin API says it.
    public enum State: String, Sendable, CaseIterable {
        /// Its conditions do not hold yet, or a retry's delay runs: `why` says which.
        case waiting
        /// A try runs against the origin.
        case running
        /// The origin's answer arrived in full; its file is in the contents directory until
        /// the relaunch ends.
        case done
        /// It cannot be done (`reason`): refused at hand-over, or past its resource timeout.
        case failed
        /// The app was force-quit.
        case cancelled
    }

    /// What became of a done transfer's file at the end of the relaunch it was handed to.
    public enum FileFate: String, Sendable, CaseIterable {
        /// The handler moved it away: it is the app's now.
        case moved
        /// The handler left it: it was deleted when the relaunch ended, as iOS deletes it
        /// once `didFinishDownloadingTo` returns. Or no relaunch will hand it over (a
        /// force-quit cancelled its session before the session's last transfer ended).
        case deleted
    }

    /// The transfer's id (`GET /v1/transfers`).
    public var id: UInt64
    /// The device the app is on.
    public var deviceToken: String
    /// The app's topic.
    public var topic: String
    /// The background session's identifier, the URL and method asked for, and its options.
    public var session: String
    /// The URL asked for.
    public var url: String
    /// The HTTP method asked for.
    public var method: TransferRequest.Method
    /// `isDiscretionary`: it waits for Wi-Fi and external power.
    public var discretionary: Bool
    /// `allowsCellularAccess`; false: it waits for Wi-Fi.
    public var allowsCellular: Bool
    /// `sessionSendsLaunchEvents`: the app is relaunched when the session's transfers are done.
    public var sessionSendsLaunchEvents: Bool
    /// An upload's file, as the app named it (the device sends the copy it took at hand-over).
    public var fromFile: String?
    /// The wake whose handler handed it over, or the task run's (one of them).
    public var wakeID: UInt64?
    /// The task run whose handler handed it over, when a task's did.
    public var taskRunID: UInt64?
    /// When the app handed it over, on the device clock.
    public var handedOverAt: DeviceInstant
    /// Where it is now.
    public var state: State
    /// Why it waits (the stored form of a `WaitReason`); nil unless waiting.
    public var why: WaitReason<DeviceInstant>?
    /// Tries started so far.
    public var attempts: Int
    /// Bytes of the origin's answer kept so far (all of them, once done).
    public var bytes: Int64
    /// When it ended; nil until it does.
    public var finishedAt: DeviceInstant?
    /// Why it failed; nil unless failed.
    public var reason: String?
    /// The HTTP status the origin answered the completed try with: as on iOS, any complete
    /// answer ends a transfer, and the app reads its status (a 404's body is its file).
    public var status: Int?
    /// Why the last try was cut off (the network went, the origin failed); nil if none was.
    public var lastError: String?
    /// The origin's validators for the body kept: a later transfer of the URL asks with them.
    public var etag: String?
    /// The origin's `Last-Modified` for the body kept.
    public var lastModified: String?
    /// The task request that relaunches the app for its session, once asked for.
    public var relaunchRequestID: UInt64?
    /// What the relaunch's handler did with its file.
    public var fileFate: FileFate?

    /// A record of a transfer just handed over, or refused (`reason`).
    public init(
        id: UInt64, deviceToken: String, topic: String, request: TransferRequest, wakeID: UInt64? = nil, taskRunID: UInt64? = nil,
        handedOverAt: DeviceInstant, state: State = .waiting, why: WaitReason<DeviceInstant>? = nil, attempts: Int = 0, bytes: Int64 = 0,
        finishedAt: DeviceInstant? = nil, reason: String? = nil, etag: String? = nil, lastModified: String? = nil,
        relaunchRequestID: UInt64? = nil, fileFate: FileFate? = nil
    ) {
        self.id = id
        self.deviceToken = deviceToken
        self.topic = topic
        self.session = request.session
        self.url = request.url
        self.method = request.method
        self.discretionary = request.discretionary
        self.allowsCellular = request.allowsCellular
        self.sessionSendsLaunchEvents = request.sessionSendsLaunchEvents
        self.fromFile = request.fromFile
        self.wakeID = wakeID
        self.taskRunID = taskRunID
        self.handedOverAt = handedOverAt
        self.state = state
        self.why = why
        self.attempts = attempts
        self.bytes = bytes
        self.finishedAt = finishedAt
        self.reason = reason
        self.etag = etag
        self.lastModified = lastModified
        self.relaunchRequestID = relaunchRequestID
        self.fileFate = fileFate
    }

    /// A record of a request refused at hand-over, with what of it could be read (the flags
    /// as asked, URLSession's defaults where they could not be): `failed`, its reason the
    /// refusal's.
    public init(
        refused refusal: TransferRefusal, id: UInt64, deviceToken: String, topic: String, session: String?, url: String?,
        method: TransferRequest.Method = .GET, fromFile: String? = nil,
        discretionary: Bool = TransferRequest.defaultDiscretionary, allowsCellular: Bool = TransferRequest.defaultAllowsCellular,
        sessionSendsLaunchEvents: Bool = TransferRequest.defaultSessionSendsLaunchEvents, wakeID: UInt64? = nil, taskRunID: UInt64? = nil,
        at: DeviceInstant
    ) {
        self.id = id
        self.deviceToken = deviceToken
        self.topic = topic
        self.session = Self.kept(session ?? "", limit: TransferRequest.maximumSessionLength)
        self.url = Self.kept(url ?? "", limit: TransferRequest.maximumURLLength)
        self.method = method
        self.fromFile = fromFile.map { Self.kept($0, limit: TransferRequest.maximumPathLength) }
        self.discretionary = discretionary
        self.allowsCellular = allowsCellular
        self.sessionSendsLaunchEvents = sessionSendsLaunchEvents
        self.wakeID = wakeID
        self.taskRunID = taskRunID
        self.handedOverAt = at
        self.state = .failed
        self.attempts = 0
        self.bytes = 0
        self.finishedAt = at
        self.reason = Self.refusedPrefix + refusal.rawValue
    }

    /// What begins a refused request's reason.
    static let refusedPrefix = "refused: "

    /// Whether this records a request refused at hand-over: it never was one of its session's
    /// transfers (a restart puts it back in no session).
    package var wasRefused: Bool {
        state == .failed && attempts == 0 && reason?.hasPrefix(Self.refusedPrefix) == true
    }

    /// A refused request's text as its record keeps it: its first `limit` characters, each
    /// control character shown as U+FFFD (a NUL would cut the text short in the store, and a
    /// filter for the record would then match another text).
    private static func kept(_ text: String, limit: Int) -> String {
        var shown = String.UnicodeScalarView()
        for scalar in String(text.prefix(limit)).unicodeScalars {
            shown.append(scalar.value < 0x20 || scalar.value == 0x7F ? "\u{FFFD}" : scalar)
        }
        return String(shown)
    }

    /// The request it was handed over as; nil for a row whose request no longer reads as valid.
    public var request: TransferRequest? {
        try? TransferRequest(
            session: session, url: url, method: method, discretionary: discretionary, allowsCellular: allowsCellular,
            sessionSendsLaunchEvents: sessionSendsLaunchEvents, fromFile: fromFile)
    }
}
