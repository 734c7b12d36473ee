@testable import SilentPushReceiver
import SilentPushCore
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
            Self.text(AdminAPI.why(.expired(with: 7), expires: false))
                == "replaced in the app's slot by a newer push, and expired with it before a wake could deliver it")
        #expect(
            Self.text(AdminAPI.why(.expired(with: 7, byAPNs: true), expires: true))
                == "replaced at APNs while the device was offline by a newer push, and expired with it before a wake could deliver it")
        #expect(
            Self.text(AdminAPI.why(.expired, expires: false)) == "APNs's storage limit for an offline device passed before a wake could deliver it")
        #expect(
            Self.text(AdminAPI.why(.expired, expires: true))
                == "its apns-expiration (or APNs's storage limit for an offline device, if sooner) passed before a wake could deliver it")
        // Replaced at APNs is said only of a push that expired with the one that replaced it.
        #expect(PushFate.expired(with: nil, byAPNs: true).coalescedByAPNs == false)
    }
}
