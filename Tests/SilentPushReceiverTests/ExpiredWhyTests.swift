@testable import SilentPushReceiver
import SilentPushCore
import SilentPushStore
import Testing

/// An expired push's `why` names the one cause its row shows: the newer push that replaced it
/// (in the app's slot, or at APNs while the device was offline), else its own time.
@Suite struct ExpiredWhyTests {
    static func text(_ why: JSONValue) -> String? {
        guard case .object(let fields) = why else { return nil }
        for (name, value) in fields where name == "text" {
            if case .string(let text) = value { return text }
        }
        return nil
    }

    @Test func eachExpiredPushSaysItsOneCause() {
        #expect(
            Self.text(AdminAPI.why(.expired(with: 7), expiry: .storageLimit(hasOwn: false)))
                == "replaced in the app's slot by a newer push, and expired with it before a wake could deliver it")
        #expect(
            Self.text(AdminAPI.why(.expired(with: 7, byAPNs: true), expiry: .ownExpiration))
                == "replaced at APNs while the device was offline by a newer push, and expired with it before a wake could deliver it")
        #expect(
            Self.text(AdminAPI.why(.expired, expiry: .storageLimit(hasOwn: false)))
                == "APNs's storage limit for an offline device passed before a wake could deliver it")
        #expect(
            Self.text(AdminAPI.why(.expired, expiry: .storageLimit(hasOwn: true)))
                == "APNs's storage limit for an offline device passed, sooner than its apns-expiration, before a wake could deliver it")
        #expect(Self.text(AdminAPI.why(.expired, expiry: .ownExpiration)) == "its apns-expiration passed before a wake could deliver it")
        // Replaced at APNs is said only of a push that expired with the one that replaced it.
        #expect(PushFate.expired(with: nil, byAPNs: true).coalescedByAPNs == false)
    }

    /// Which expiry a row's push ran out of: the storage limit counts only for a push APNs
    /// held (the device offline at its arrival), and only when it comes before its own.
    @Test func theRowSaysWhichExpiryCameFirst() {
        let day: Int64 = 86_400_000
        func push(expiresAt: Int64?, held: Bool) -> PushRecord {
            PushRecord(
                id: 1, apnsID: "a", deviceToken: "d", topic: "t", pushType: "background", priority: 5, receivedAt: 10 * day,
                expiresAt: expiresAt, collapseID: nil, payload: [], warnings: [], fate: .expired, heldAtAPNs: held)
        }
        let limit = Duration.seconds(30 * 86_400)
        #expect(PushExpiry(of: push(expiresAt: nil, held: true), storageLimit: limit) == .storageLimit(hasOwn: false))
        #expect(PushExpiry(of: push(expiresAt: 11 * day, held: true), storageLimit: limit) == .ownExpiration)
        #expect(PushExpiry(of: push(expiresAt: 40 * day, held: true), storageLimit: limit) == .ownExpiration)
        #expect(PushExpiry(of: push(expiresAt: 41 * day, held: true), storageLimit: limit) == .storageLimit(hasOwn: true))
        // Waiting on the device, a push is not held to APNs's limit.
        #expect(PushExpiry(of: push(expiresAt: 41 * day, held: false), storageLimit: limit) == .ownExpiration)
    }

    /// A task run expired before its deadline says the system expired it early (the device in
    /// use again, for a processing task); one expired at its deadline, that its time ran out.
    @Test func aTaskRunExpiredEarlySaysSo() {
        func run(expiredAt: Int64) -> TaskRunRecord {
            TaskRunRecord(
                id: 1, requestID: 1, deviceToken: "ab", topic: "t", identifier: "p", kind: .processing,
                startedAt: DeviceInstant(secondsSinceEpoch: 0), deadline: DeviceInstant(secondsSinceEpoch: 600), simulated: false,
                expiredAt: DeviceInstant(secondsSinceEpoch: expiredAt), finishedAt: DeviceInstant(secondsSinceEpoch: expiredAt + 1), outcome: .expired
            )
        }
        #expect(Self.text(AdminAPI.why(run(expiredAt: 120)))?.hasPrefix("the system expired it before its time") == true)
        #expect(Self.text(AdminAPI.why(run(expiredAt: 600))) == "its time ran out; it completed after its expiration handler")
    }
}
