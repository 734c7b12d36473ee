// Cost of the APNs request path without the transport: one request through the endpoint
// (headers, cached-token auth, validation, registry, sink), and one uncached ES256
// verification. Each figure is the best of several timed runs, printed beside a reference
// measured in the same run. Build with -c release (make bench-apns).
import Foundation
import SilentPushCore
@_spi(Benchmarks) import SilentPushReceiver
import SilentPushTesting

/// Best nanoseconds per iteration over `rounds` runs of `iterations`.
func measure(_ iterations: Int, rounds: Int = 7, _ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    var best = Double.infinity
    for _ in 0..<rounds {
        let start = clock.now
        for _ in 0..<iterations { body() }
        let elapsed = clock.now - start
        let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        best = min(best, nanoseconds / Double(iterations))
    }
    return best
}

func row(_ name: String, _ nanoseconds: Double, reference: Double, referenceName: String) {
    let ratio = nanoseconds / reference
    let label = name.padding(toLength: 50, withPad: " ", startingAt: 0)
    print(label + String(format: "%9.0f ns  %6.2f× ", nanoseconds, ratio) + referenceName)
}

let jwt = try DevProviderToken.make()
let authKey = AuthKeySpec.development(certificatesDirectory: DevCertificates.directory)
let headers = SamplePush.headers(jwt: jwt)
let endpoint = try await APNsRequestDriver(authKey: authKey, headers: headers, body: SamplePush.payload, sink: .discard)
func push() { endpoint.push(path: SamplePush.path) }
push()
precondition(endpoint.acceptedCount == 1, "the benchmark push was not accepted")

// Reference: parsing the same 32-byte payload with Foundation's JSONSerialization.
let payloadData = Data(SamplePush.payload)
let jsonReference = measure(100_000) { _ = try? JSONSerialization.jsonObject(with: payloadData) }
print("APNs request path, \(ProcessInfo.processInfo.activeProcessorCount) cores, best of 7 runs")
row("JSONSerialization of the payload (reference)", jsonReference, reference: jsonReference, referenceName: "reference")
let perRequest = measure(100_000) { push() }
row("validation + cached-token auth, one request", perRequest, reference: jsonReference, referenceName: "of the reference")

// Uncached: parse the JWT and check its ES256 signature, against the bare verification.
let verifier = try ProviderTokenVerifier(keyFile: DevCertificates.authKey)
let signingInput = try ProviderToken.parse(Substring(jwt)).signingInput
let derSignature = try verifier.signDER(signingInput)
let bareVerify = measure(2_000) { _ = verifier.verify(derSignature: derSignature, message: signingInput) }
row("ES256 verify, DER signature (reference)", bareVerify, reference: bareVerify, referenceName: "reference")
let uncached = measure(2_000) { _ = try! verifier.verify(jwt: jwt) }
row("uncached token: parse + ES256 verify of r||s", uncached, reference: bareVerify, referenceName: "of the reference")
// The device side as silentpushd runs it: the wake policy on the system clock and the
// push queued for the SQLite file's writer (its commit runs on the writer's thread and is
// not timed here), over 20,000 device tokens.
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("silentpush-bench-\(UUID().uuidString)")
defer { try? FileManager.default.removeItem(at: directory) }
let device = try await APNsRequestDriver(
    authKey: authKey, headers: headers, body: SamplePush.payload, sink: .device(storePath: directory.appendingPathComponent("store.sqlite").path))
let devicePaths = (0..<20_000).map { "/3/device/" + String(repeating: String(format: "%08x", $0), count: 8) }
var nextPath = 0
@MainActor func devicePush() {
    nextPath = (nextPath + 1) % devicePaths.count
    device.push(path: devicePaths[nextPath])
}
for _ in 0..<devicePaths.count { devicePush() }  // every app woken once: the rest wait and coalesce
let withDevice = measure(20_000) { devicePush() }
row("the same + device side (policy, store queue)", withDevice, reference: jsonReference, referenceName: "of the reference")
await device.shutdown()
precondition(device.acceptedCount == 20_000 + 7 * 20_000, "not every push was recorded: \(device.acceptedCount)")

print(String(format: "per-request target: under 5 µs — measured %.2f µs", perRequest / 1000))
