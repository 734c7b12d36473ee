// A broadcast to a channel with N subscribed Live Activities (default 100,000, on 10,000
// devices), through the receiver's provider listener over HTTP/2, on a file store and the
// manual clock, with no throttling. It prints how long the broadcast took from request to
// answer (the answer comes once the broadcast and every activity's update are committed:
// then every activity shows it), the process's CPU meanwhile, and the latency of /3/device
// pushes sent during it against the same pushes sent before it (the reference measured in
// the same run): p50 and p99 of each, and the p99 ratio.
//
// Build with -c release: `swift run --package-path Benchmarks -c release BroadcastFanOutBenchmark [N]`.
import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushTesting

let activities = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 0 : 100_000
guard (10...1_000_000).contains(activities) else {
    FileHandle.standardError.write(Data("usage: BroadcastFanOutBenchmark [ACTIVITIES 10...1000000]\n".utf8))
    exit(2)
}
let perDevice = 10
let bundleID = "com.example.app"

func processCPU() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

func device(_ index: Int) -> String {
    let hex = String(index, radix: 16)
    return String(repeating: "0", count: 64 - hex.count) + hex
}

/// Latencies, in ms, of `count` background pushes sent one after another.
func pushLatencies(_ client: TestPushClient, count: Int, until stop: (@Sendable () -> Bool)? = nil) async throws -> [Double] {
    var latencies: [Double] = []
    for index in 0..<count {
        if let stop, stop(), index > 0 { break }
        let start = ContinuousClock.now
        let answer = try await client.push(to: device(1_000_000 + index % 1000))
        precondition(answer.status == 200, "push answered \(answer.status)")
        let elapsed = ContinuousClock.now - start
        latencies.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
    }
    return latencies
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("silentpush-broadcast-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

try await Receiver.withTesting({ configuration in
    configuration.store = .file(directory.appendingPathComponent("store.sqlite").path)
    configuration.liveActivities = .unthrottled
}) { receiver in
    let channel = try await receiver.createChannel(bundleID: bundleID, storagePolicy: .noMessageStored)
    let setup = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
        var started = 0
        for index in 0..<activities {
            if started >= 256 {
                try await group.next()
                started -= 1
            }
            group.addTask {
                _ = try await receiver.device.startActivity(
                    device: device(index / perDevice), bundleID: bundleID, attributesType: "MatchAttributes", channel: channel.id)
            }
            started += 1
        }
        try await group.waitForAll()
    }
    print("set up \(activities) activities on \(activities / perDevice) devices in \(ContinuousClock.now - setup)")

    let pusher = try await TestPushClient.connect(to: receiver)
    let broadcaster = try await TestPushClient.connect(to: receiver)
    let before = try await pushLatencies(pusher, count: 2000)

    let done = ManagedAtomicFlag()
    let cpuStart = processCPU()
    let broadcast = Task {
        let start = ContinuousClock.now
        let response = try await broadcaster.broadcast(
            #"{"aps":{"timestamp":1767226500,"event":"update","content-state":{"home":1,"away":0}}}"#, bundleID: bundleID, channel: channel.id)
        let wall = ContinuousClock.now - start
        done.set()
        return (response, wall)
    }
    let during = try await pushLatencies(pusher, count: 1_000_000, until: { done.isSet })
    let (response, wall) = try await broadcast.value
    let cpu = processCPU() - cpuStart
    precondition(response.status == 200, "the broadcast answered \(response.status)")

    // Every activity shows it: sample the first, last and a middle device.
    for index in [0, activities / 2, activities - 1] {
        let shown = try await receiver.device.activities(device: device(index / perDevice), bundleID: bundleID)
        precondition(shown.allSatisfy { $0.contentState.contains("\"home\":1") }, "device \(index / perDevice) does not show the update")
    }
    print("broadcast to \(activities) activities: \(wall) from request to answer, \(String(format: "%.2f", cpu)) s CPU")
    print(
        String(
            format: "/3/device pushes before: p50 %.2f ms, p99 %.2f ms (%d); during: p50 %.2f ms, p99 %.2f ms (%d); p99 ratio %.2f",
            percentile(before, 0.5), percentile(before, 0.99), before.count, percentile(during, 0.5), percentile(during, 0.99), during.count,
            percentile(during, 0.99) / percentile(before, 0.99)))
    await pusher.close()
    await broadcaster.close()
}

/// A flag set once, read from another task.
final class ManagedAtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
