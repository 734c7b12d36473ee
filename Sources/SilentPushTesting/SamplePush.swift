import Foundation
import SilentPushCore
import SilentPushTransport

/// A valid silent push to the dev topic, for tests.
public enum SamplePush {
    /// A 32-byte device token in hex.
    public static let deviceToken = "7c1e4a5b9d2f3e6a8b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c6"
    /// The dev topic (the dev client certificate's UID).
    public static let topic = "com.example.app"
    /// `{"aps":{"content-available":1}}`.
    public static let payload = Array(#"{"aps":{"content-available":1}}"#.utf8)
    /// The path for `deviceToken`.
    public static var path: String { "/3/device/\(deviceToken)" }

    /// The headers of a background push with priority 5, authorised by `jwt`.
    public static func headers(jwt: String?) -> [(String, String)] {
        var headers = [("apns-topic", topic), ("apns-push-type", "background"), ("apns-priority", "5")]
        if let jwt { headers.append(("authorization", "bearer \(jwt)")) }
        return headers
    }

    /// The same as the transport's header list.
    package static func headerList(jwt: String?) -> H2HeaderList {
        H2HeaderList(headers(jwt: jwt).map { (name: $0.0, value: $0.1) })
    }

    /// The same as curl/h2load `-H` arguments.
    public static func headerArguments(jwt: String?) -> [String] {
        headers(jwt: jwt).flatMap { ["-H", "\($0.0): \($0.1)"] }
    }
}
