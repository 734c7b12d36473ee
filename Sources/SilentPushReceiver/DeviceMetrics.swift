import CoreMetrics
import SilentPushCore

/// The device side's metrics (swift-metrics; `silentpushd` exports them at the admin API's
/// `GET /metrics`): how wakes end and how long fetch handlers take.
struct DeviceMetrics: Sendable {
    private let newData: Counter
    private let noData: Counter
    private let failed: Counter
    private let deadlineExceeded: Counter
    private let fetchDuration: CoreMetrics.Timer

    /// Metrics made by `factory` (each receiver has its own registry, so in-process tests
    /// never share one).
    init(factory: any MetricsFactory) {
        func results(_ kind: String) -> Counter {
            Counter(label: "silentpush_fetch_results_total", dimensions: [("result", kind)], factory: factory)
        }
        newData = results("newData")
        noData = results("noData")
        failed = results("failed")
        deadlineExceeded = results("deadlineExceeded")
        fetchDuration = CoreMetrics.Timer(label: "silentpush_fetch_duration_seconds", dimensions: [], factory: factory)
    }

    /// A wake ended with `result`, its handler having run for `duration` (real time).
    func record(_ result: FetchResult, duration: Duration) {
        switch result {
        case .newData: newData.increment()
        case .noData: noData.increment()
        case .failed where result == .deadlineExceeded: deadlineExceeded.increment()
        case .failed: failed.increment()
        }
        fetchDuration.recordNanoseconds(duration.nanosecondCount)
    }
}
