import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushTestSupport
import SilentPushTesting
import Testing

/// `PATCH /v1/devices/{token}` `{"unregistered": true}`: the app uninstalled. APNs answers its
/// token 410, and what waited for the app never reaches it, as after a reinstall.
@Suite struct UninstallLiveTests {
    @Test func anUninstalledAppsWaitingPushIsDroppedAndItsTasksCancelled() async throws {
        try await Receiver.withTesting({
            $0.apps = [SamplePush.topic: AppDeclaration(permittedTaskIdentifiers: ["com.example.refresh"], backgroundModes: [.fetch])]
        }) { receiver in
            try await receiver.setDeviceState(DeviceState(lowPowerMode: true))
            let client = try await TestPushClient.connect(to: receiver)
            let waiting = try await client.push()
            #expect(waiting.status == 200)
            #expect(try await receiver.fate(of: waiting.apnsID) == .pending)
            try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh))
            let admin = try #require(receiver.adminPort)
            let patched = try await SilentPushdDeviceTests.admin(
                admin, "PATCH", "/v1/devices/\(SamplePush.deviceToken)", body: #"{"unregistered": true}"#)
            #expect(patched.status == 200 && patched.json["unregistered"] as? Bool == true, "\(patched.json)")
            #expect(try await receiver.fate(of: waiting.apnsID) == .dropped(.appDeleted))
            #expect(try await receiver.taskRequests().map(\.state) == [.cancelled])
            let after = try await client.push()
            #expect(after.status == 410 && after.reason == .unregistered)
            // Marked again later, it keeps the time it was unregistered (APNs's timestamp).
            try await receiver.advanceClock(by: .seconds(60))
            let again = try await SilentPushdDeviceTests.admin(
                admin, "PATCH", "/v1/devices/\(SamplePush.deviceToken)", body: #"{"unregistered": true}"#)
            #expect(patched.json["unregisteredAt"] is String, "\(patched.json)")
            #expect(again.json["unregisteredAt"] as? String == patched.json["unregisteredAt"] as? String, "\(again.json)")
            await client.close()
        }
    }

    /// A deleted app runs nothing, so it submits no task and starts no Live Activity: both
    /// are refused (409, saying how to register the token again) until it is registered.
    @Test func anUninstalledAppSubmitsNoTaskAndStartsNoActivity() async throws {
        try await Receiver.withTesting({
            $0.apps = [SamplePush.topic: AppDeclaration(permittedTaskIdentifiers: ["com.example.refresh"], backgroundModes: [.fetch])]
        }) { receiver in
            let admin = try #require(receiver.adminPort)
            let device = "/v1/devices/\(SamplePush.deviceToken)"
            _ = try await SilentPushdDeviceTests.admin(admin, "PATCH", device, body: #"{"unregistered": true}"#)
            await #expect(throws: AppNotInstalled(deviceToken: SamplePush.deviceToken)) {
                try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh))
            }
            let task = try await SilentPushdDeviceTests.admin(
                admin, "POST", "\(device)/apps/\(SamplePush.topic)/tasks", body: #"{"identifier": "com.example.refresh", "kind": "refresh"}"#)
            #expect(task.status == 409 && (task.json["detail"] as? String)?.contains(#"{"unregistered": false}"#) == true, "\(task.json)")
            let activity = try await SilentPushdDeviceTests.admin(
                admin, "POST", "\(device)/apps/\(SamplePush.topic)/activities", body: #"{"attributesType": "Score"}"#)
            #expect(activity.status == 409, "\(activity.json)")
            #expect(try await receiver.taskRequests().isEmpty)
            // Registered again, it asks as any app does.
            _ = try await SilentPushdDeviceTests.admin(admin, "PATCH", device, body: #"{"unregistered": false}"#)
            let request = try await receiver.submitTask(.init(identifier: "com.example.refresh", kind: .refresh))
            #expect(request.request.identifier == "com.example.refresh")
        }
    }
}
