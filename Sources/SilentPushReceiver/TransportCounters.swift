import Prometheus
import SilentPushTransport
import Synchronization

/// The transport's counts of what it refused or cut short, as Prometheus counters brought
/// up to date at each scrape (the transport keeps plain atomics: no metrics on its path).
final class TransportCounters: Sendable {
    private let statistics: H2ServerStatistics
    private let counters: [Prometheus.Counter]
    private let seen: Mutex<[Int]>

    init(registry: PrometheusCollectorRegistry, statistics: H2ServerStatistics) {
        self.statistics = statistics
        counters = H2ServerStatistics.names.map { name, help in
            registry.makeCounter(descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: help))
        }
        seen = Mutex(Array(repeating: 0, count: counters.count))
    }

    /// Adds what each count gained since the last call.
    func update() {
        let counts = statistics.counts
        seen.withLock { seen in
            for (index, counter) in counters.enumerated() where counts[index] > seen[index] {
                counter.increment(by: Int64(counts[index] - seen[index]))
                seen[index] = counts[index]
            }
        }
    }
}
