import CoreMetrics
import Prometheus

/// The metrics the device side and the pruner make through swift-metrics, with their Prometheus
/// help text: each family's `# HELP` line. swift-prometheus's own factory gives none; this one
/// gives the text below for the names it has, and leaves the rest to that factory.
struct MetricsHelp: CoreMetrics.MetricsFactory {
    let registry: PrometheusCollectorRegistry
    let base: PrometheusMetricsFactory

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        base = PrometheusMetricsFactory(registry: registry)
    }

    /// Each metric's help, by name: one table, so a family's text is the same wherever it is made.
    static let texts: [String: String] = [
        "silentpush_pushes_accepted_total": "Pushes answered 200 (after their commit).",
        "silentpush_pushes_rejected_total": "Pushes refused, by Apple's reason.",
        "silentpush_push_fates_total": "Final fates: delivered, coalesced (when the wake they ride starts; a Live Activity update at once), expired.",
        "silentpush_push_drops_total": "Pushes dropped, by reason.",
        "silentpush_pending_slots": "Apps with a push waiting in their slot.",
        "silentpush_wakes_started_total": "Fetch wakes started.",
        "silentpush_reloads_total": "Widget and control reloads by push, by kind.",
        "silentpush_fetch_results_total": "Wakes ended, by result.",
        "silentpush_fetch_duration_seconds": "How long fetch handlers ran (real time).",
        "silentpush_device_timer_wakeups_total": "Times the system-clock timer woke.",
        "silentpush_task_runs_started_total": "Background task runs started.",
        "silentpush_task_outcomes_total": "Task runs ended, and requests cancelled or replaced, by outcome.",
        "silentpush_transfers_handed_over_total": "Background transfers handed over by handlers.",
        "silentpush_transfers_ended_total": "Background transfers ended, by state.",
        "silentpush_transfer_bytes_total": "Bytes of the origins' answers background transfers received (an upload's body is not counted).",
        "silentpush_faults_injected_total": "Requests a fault rule answered, by action.",
        "silentpush_store_pruned_total": "Rows retention pruned, by table.",
        "silentpush_store_prune_batch_seconds": "How long each pruning batch took.",
    ]

    private func descriptor(_ label: String) -> MetricNameDescriptor? {
        Self.texts[label].map { MetricNameDescriptor(metricName: label, unitName: "", helpText: $0) }
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        guard let descriptor = descriptor(label) else { return base.makeCounter(label: label, dimensions: dimensions) }
        return registry.makeCounter(descriptor: descriptor, labels: dimensions)
    }

    // Every kind of metric takes the table's text, so no family is made twice with two texts
    // (swift-prometheus stops the process on that).
    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        guard let descriptor = descriptor(label) else { return base.makeFloatingPointCounter(label: label, dimensions: dimensions) }
        return registry.makeCounter(descriptor: descriptor, labels: dimensions)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard let descriptor = descriptor(label) else { return base.makeRecorder(label: label, dimensions: dimensions, aggregate: aggregate) }
        guard aggregate else { return registry.makeGauge(descriptor: descriptor, labels: dimensions) }
        return registry.makeValueHistogram(descriptor: descriptor, labels: dimensions, buckets: base.defaultValueHistogramBuckets)
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        guard let descriptor = descriptor(label) else { return base.makeMeter(label: label, dimensions: dimensions) }
        return registry.makeGauge(descriptor: descriptor, labels: dimensions)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        guard let descriptor = descriptor(label) else { return base.makeTimer(label: label, dimensions: dimensions) }
        return registry.makeDurationHistogram(descriptor: descriptor, labels: dimensions, buckets: base.defaultDurationHistogramBuckets)
    }

    func destroyCounter(_ handler: any CounterHandler) { base.destroyCounter(handler) }
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) { base.destroyFloatingPointCounter(handler) }
    func destroyRecorder(_ handler: any RecorderHandler) { base.destroyRecorder(handler) }
    func destroyMeter(_ handler: any MeterHandler) { base.destroyMeter(handler) }
    func destroyTimer(_ handler: any TimerHandler) { base.destroyTimer(handler) }
}
