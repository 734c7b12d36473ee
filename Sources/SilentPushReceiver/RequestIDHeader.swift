import SilentPushCore
import SilentPushTransport

/// The `apns-request-id` of a channel-management or broadcast request, and the answers that
/// carry it. Apple's broadcast example sends `apns-id` instead; it is read the same way
/// when `apns-request-id` is absent.
struct RequestIDHeader {
    /// What the request gave.
    enum Given { case none, valid, invalid }

    /// The id every answer carries: the request's own when it is a canonical UUID, else a new one.
    let id: String
    let given: Given

    static let name = "apns-request-id"

    /// Reads the request's id; `generate` makes one when it has none (or a bad one).
    init(_ request: H2Request, generate: () -> String) {
        guard let text = request.headers.first(Self.name) ?? request.headers.first("apns-id") else {
            id = generate()
            given = .none
            return
        }
        if APNsHeaders.isCanonicalUUID(text) {
            id = text
            given = .valid
        } else {
            id = generate()
            given = .invalid
        }
    }

    /// Refuses a request as APNs does: the status, `apns-request-id`, and `{"reason":…}`.
    func error(_ reason: APNsReason) -> H2Response {
        H2Response(
            status: reason.status, headers: [(Self.name, id), ("content-type", "application/json")],
            body: APNsErrorBody(APNsRejection(reason)).bytes)
    }
}
