// 1,000,000 apps through the pure wake policy on one core: events per second, beside a
// reference measured in the same run (Dictionary upserts of the same keys), and the
// resident memory each idle app costs while it holds a pending push.
// Build with -c release (make bench-policy).
import Foundation
import SilentPushCore

struct CompactApp: WakeApp {
    var device: UInt32
    var topic: UInt32
}

func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    return (fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

let appCount = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 1_000_000 : 1_000_000
let clock = ContinuousClock()
let start = DeviceInstant(secondsSinceEpoch: 1_800_000_000)
let apps = (0..<appCount).map { CompactApp(device: UInt32($0), topic: 1) }

// Reference: one Dictionary upsert per event, same keys, same process.
var reference: [CompactApp: UInt64] = [:]
var referenceEvents = 0
let referenceTime = clock.measure {
    for round in 0..<3 {
        for app in apps {
            reference[app, default: 0] &+= UInt64(round)
            referenceEvents += 1
        }
    }
}
let referenceRate = Double(referenceEvents) / seconds(referenceTime)
reference = [:]

var policy = WakePolicy<CompactApp, DeviceInstant>(settings: WakeSettings(maximumConcurrentFetches: nil))
var events = 0
var wakes: [WakeStart<CompactApp, DeviceInstant>] = []
wakes.reserveCapacity(appCount)
@MainActor func collect(_ actions: [WakeAction<CompactApp, DeviceInstant>]) {
    for case .startWake(let wake) in actions { wakes.append(wake) }
}
@MainActor func completeWakes(at now: DeviceInstant) {
    for wake in wakes {
        collect(policy.fetchCompleted(wakeID: wake.wakeID, app: wake.app, now: now).actions)
        events += 1
    }
    wakes.removeAll(keepingCapacity: true)
}

let baseline = residentBytes()
var pushID: UInt64 = 0
let busyTime = clock.measure {
    // Every app is woken by a push, and its handler answers.
    for app in apps {
        pushID += 1
        collect(policy.receive(IncomingPush(id: pushID, priority: .high), for: app, now: start))
        events += 1
    }
    completeWakes(at: start)
    // A minute later each gets another push: it waits in the slot for the interval.
    let later = start.advanced(by: .seconds(60))
    for app in apps {
        pushID += 1
        collect(policy.receive(IncomingPush(id: pushID, priority: .high), for: app, now: later))
        events += 1
    }
}
let idleResident = residentBytes() - baseline
precondition(apps.allSatisfy { policy.pendingPush(of: $0) != nil }, "every app should hold a pending push")

let wakeTime = clock.measure {
    // The interval passes: every timer fires and every app is woken again.
    let due = start.advanced(by: .seconds(15 * 60))
    collect(policy.advance(to: due))
    events += wakes.count
    completeWakes(at: due)
}
precondition(apps.allSatisfy { policy.pendingPush(of: $0) == nil }, "every pending push should have been delivered")

let rate = Double(events) / seconds(busyTime + wakeTime)
print("wake policy, \(appCount) apps, one core")
print(String(format: "reference: Dictionary upserts        %12.0f /s", referenceRate))
print(String(format: "policy events (push, answer, timer)  %12.0f /s   %.2f× the reference", rate, rate / referenceRate))
print(String(format: "events: %d in %.2f s", events, seconds(busyTime + wakeTime)))
print(String(format: "resident memory per idle app holding a pending push: %.0f bytes (target: under 300)", Double(idleResident) / Double(appCount)))
print(String(format: "target: at least 1,000,000 events/s — %@", rate >= 1_000_000 ? "met" : "NOT met"))
