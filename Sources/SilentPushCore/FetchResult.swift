/// What an app's fetch handler reports at the end of a wake, as iOS's
/// `UIBackgroundFetchResult`, with a reason for failures; or why the receiver ended the wake
/// itself. A handler's own words can never read as the receiver's: each is a case of its own.
public enum FetchResult: Sendable, Equatable {
    /// The handler downloaded new data (`UIBackgroundFetchResult.newData`).
    case newData
    /// The handler found no new data (`UIBackgroundFetchResult.noData`).
    case noData
    /// The handler reported a failure, in its own words.
    case failed(reason: String)
    /// The handler ran past its deadline and was cancelled.
    case deadlineExceeded
    /// The receiver stopped, its shutdown grace over, before the handler answered.
    case shutdown
    /// The receiver stopped during the fetch and was started again: what the handler would
    /// have answered is not known.
    case interrupted
    /// The system killed the app's process while the handler ran (force-quit, restart,
    /// deletion): the handler was stopped and never answered.
    case killed(AppKill)

    /// A result's kind without its data: the one place each kind's name is spelled (the
    /// store's `result` column, the stats' and metrics' labels, the reasons below).
    package enum Kind: String, Sendable, CaseIterable {
        case newData, noData, failed, deadlineExceeded, shutdown, interrupted, killed
    }

    /// The result's kind.
    package var kind: Kind {
        switch self {
        case .newData: .newData
        case .noData: .noData
        case .failed: .failed
        case .deadlineExceeded: .deadlineExceeded
        case .shutdown: .shutdown
        case .interrupted: .interrupted
        case .killed: .killed
        }
    }

    /// The result's name as served: newData, noData or failed (every failure).
    public var name: String {
        switch self {
        case .newData, .noData: kind.rawValue
        case .failed, .deadlineExceeded, .shutdown, .interrupted, .killed: Kind.failed.rawValue
        }
    }

    /// What `GET /v1/stats` and `/metrics` count the result as: newData, noData,
    /// deadlineExceeded (the overrun a penalty follows), or failed (every other failure).
    package var countedAs: Kind {
        switch self {
        case .newData, .noData, .deadlineExceeded: kind
        case .failed, .shutdown, .interrupted, .killed: .failed
        }
    }

    /// Who ended the wake: the handler with its answer, or the receiver (`deadline`,
    /// `shutdown`, `restart`), or the device killing the app (`killed`), whatever words a
    /// handler's failure uses.
    public enum Ending: String, Sendable, CaseIterable {
        /// The handler answered: newData, noData or a failure in its own words.
        case handler
        /// The receiver cancelled the handler at its deadline.
        case deadline
        /// The receiver stopped, its shutdown grace over, before the handler answered.
        case shutdown
        /// The receiver stopped during the fetch and was started again.
        case restart
        /// The device killed the app's process while the handler ran.
        case killed
    }

    /// Who ended the wake.
    public var endedBy: Ending {
        switch self {
        case .newData, .noData, .failed: .handler
        case .deadlineExceeded: .deadline
        case .shutdown: .shutdown
        case .interrupted: .restart
        case .killed: .killed
        }
    }

    /// Why it failed, as served; nil for newData and noData.
    public var reason: String? {
        switch self {
        case .newData, .noData: nil
        case .failed(let reason): reason
        case .deadlineExceeded, .shutdown: kind.rawValue
        case .interrupted: "\(kind.rawValue): the receiver stopped during the fetch"
        case .killed(let cause): "\(kind.rawValue): \(cause.description)"
        }
    }

    /// Reads a handler's answer line: `newData`, `noData`, `failed` or `failed <reason>`,
    /// spaces, tabs and a carriage return around it aside; anything else is a failure that
    /// quotes the line.
    public init(line: Substring) {
        let trimmed = Substring(String(line.drop { $0 == " " || $0 == "\t" }).trimmingTrailingSpaces)
        let words = trimmed.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        switch words.first.flatMap({ Kind(rawValue: String($0)) }) {
        case .newData? where words.count == 1: self = .newData
        case .noData? where words.count == 1: self = .noData
        case .failed?:
            let reason = words.count > 1 ? String(words[1]).trimmingTrailingSpaces : "failed"
            self = .failed(reason: reason.isEmpty ? "failed" : reason)
        default:
            let shown = trimmed.prefix(80)
            self = .failed(reason: shown.isEmpty ? "no result line" : "unexpected result line: \(shown)")
        }
    }
}

extension String {
    fileprivate var trimmingTrailingSpaces: String {
        var text = Substring(self)
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text = text.dropLast() }
        return String(text)
    }
}
