import Foundation

/// What a run did: counts, rejections by status and reason, latency and rate.
package struct PushSendSummary: Sendable {
    /// Pushes made (answered or not).
    package var sent: Int
    /// Answered 200.
    package var accepted: Int
    /// `"<status> <reason>"` → how many.
    package var rejected: [String: Int]
    /// Pushes with no answer (the connection failed), with why.
    package var errors: [String]
    /// Every push's latency in nanoseconds, sorted.
    package var latencies: [Int64]
    package var elapsed: Duration

    /// The exit code: 0 all accepted, 1 any rejected, 2 any unanswered.
    package var exitCode: Int32 {
        if !errors.isEmpty { return 2 }
        return rejected.isEmpty ? 0 : 1
    }

    /// The latency below which `fraction` of the pushes were answered.
    package func latency(percentile fraction: Double) -> Duration {
        guard !latencies.isEmpty else { return .zero }
        let index = min(latencies.count - 1, Int((Double(latencies.count) * fraction).rounded(.up)) - 1)
        return .nanoseconds(latencies[max(0, index)])
    }

    /// Pushes per second over the run.
    package var rate: Double {
        let seconds = Double(elapsed.nanosecondCount) / 1e9
        return seconds > 0 ? Double(sent) / seconds : 0
    }

    /// The summary lines for stderr.
    package var text: String {
        var lines: [String] = []
        let rejectedCount = rejected.values.reduce(0, +)
        var first = "sent \(sent), accepted \(accepted), rejected \(rejectedCount)"
        if !rejected.isEmpty {
            first += " (" + rejected.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + ")"
        }
        if !errors.isEmpty { first += ", unanswered \(errors.count)" }
        lines.append(first)
        lines.append(
            String(
                format: "latency p50 %.2f ms, p99 %.2f ms; %.0f pushes/s over %.2f s",
                Self.milliseconds(latency(percentile: 0.5)), Self.milliseconds(latency(percentile: 0.99)), rate,
                Double(elapsed.nanosecondCount) / 1e9))
        if let error = errors.first {
            // With nothing answered, the server is likely not the one meant; with answers, it
            // closed the connection or reset the stream under those pushes.
            let hint = accepted == 0 && rejected.isEmpty ? " (check --url, its scheme and port, and --cert)" : ""
            lines.append("first unanswered push: \(error)" + hint)
        }
        return lines.joined(separator: "\n")
    }

    private static func milliseconds(_ duration: Duration) -> Double { Double(duration.nanosecondCount) / 1e6 }
}
