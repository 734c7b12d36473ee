/// What an app's fetch handler reports at the end of a wake, as iOS's
/// `UIBackgroundFetchResult`, with a reason for failures.
public enum FetchResult: Sendable, Equatable {
    case newData
    case noData
    case failed(reason: String)

    /// The result's name as stored and served: newData, noData or failed.
    public var name: String {
        switch self {
        case .newData: "newData"
        case .noData: "noData"
        case .failed: "failed"
        }
    }

    /// Why it failed; nil for newData and noData.
    public var reason: String? {
        if case .failed(let reason) = self { return reason }
        return nil
    }

    /// A result as stored: its `name` and, for a failure, its `reason`; nil for a name that
    /// is none of the three.
    public init?(name: String, reason: String?) {
        switch name {
        case "newData": self = .newData
        case "noData": self = .noData
        case "failed": self = .failed(reason: reason ?? "failed")
        default: return nil
        }
    }

    /// The handler ran past its deadline and was cancelled.
    public static let deadlineExceeded = FetchResult.failed(reason: "deadlineExceeded")

    /// The receiver stopped, its shutdown grace over, before the handler answered.
    public static let shutdown = FetchResult.failed(reason: "shutdown")

    /// The receiver stopped during the fetch and was started again: what the handler would
    /// have answered is not known.
    public static let interrupted = FetchResult.failed(reason: "interrupted: the receiver stopped during the fetch")

    /// Reads a handler's answer line: `newData`, `noData`, `failed` or `failed <reason>`;
    /// anything else is a failure that quotes the line.
    public init(line: Substring) {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        let words = trimmed.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        switch words.first {
        case "newData" where words.count == 1: self = .newData
        case "noData" where words.count == 1: self = .noData
        case "failed":
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
