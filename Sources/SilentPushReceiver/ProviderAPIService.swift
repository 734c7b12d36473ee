import SilentPushCore
import SilentPushTransport

/// Answers APNs provider requests on the HTTP/2 transport.
///
/// For now it answers every `POST /3/device/<token>` with 200 and an `apns-id` (echoed, or
/// generated upper-case) and anything else with 404 `{"reason":"BadPath"}`; request
/// validation, auth and the device side come next.
struct ProviderAPIService: H2Service {
    let ids: APNsIDGenerator

    func handle(_ request: H2Request, writer: H2ResponseWriter) {
        let apnsID = request.headers.first("apns-id") ?? ids.next()
        switch APNsRoute(method: request.method, path: request.path) {
        case .push:
            writer.respond(H2Response(status: 200, headers: H2HeaderList(name: "apns-id", value: apnsID)))
        case .missingDeviceToken, .methodNotAllowed, .badPath:
            writer.respond(Self.error(404, reason: "BadPath", apnsID: apnsID))
        }
    }

    func refuse(_ request: H2Request, problem: H2RequestProblem, writer: H2ResponseWriter) {
        let apnsID = request.headers.first("apns-id") ?? ids.next()
        switch problem {
        case .bodyTooLarge:
            writer.respond(Self.error(413, reason: "PayloadTooLarge", apnsID: apnsID))
        case .headerListTooLarge:
            writer.respond(Self.error(431, reason: "HeaderListTooLarge", apnsID: apnsID))
        }
    }

    static func error(_ status: Int, reason: String, apnsID: String) -> H2Response {
        H2Response(
            status: status,
            headers: ["apns-id": apnsID, "content-type": "application/json"],
            body: Array(#"{"reason":"\#(reason)"}"#.utf8))
    }
}
