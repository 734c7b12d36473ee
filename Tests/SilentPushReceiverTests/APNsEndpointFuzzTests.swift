import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushTesting
import SilentPushTransport
import Testing

/// Random and mutated requests never crash the receiver: each answer is an accepted push
/// (200, no body) or an Apple reason with its own status.
@Suite struct APNsEndpointFuzzTests {
    /// SplitMix64: seeded, so a failure can be replayed.
    struct Random: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let alphabet = Array("abcdefABCDEF0123456789-_./:?{}[]\",\\ éü\u{0}\u{7f}".unicodeScalars)

    static func randomText(_ random: inout Random, maxLength: Int) -> String {
        String(String.UnicodeScalarView((0..<Int.random(in: 0...maxLength, using: &random)).map { _ in alphabet.randomElement(using: &random)! }))
    }

    static func mutate(_ bytes: [UInt8], _ random: inout Random) -> [UInt8] {
        var bytes = bytes
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            switch Int.random(in: 0..<4, using: &random) {
            case 0 where !bytes.isEmpty: bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            case 1 where !bytes.isEmpty: bytes.remove(at: Int.random(in: 0..<bytes.count, using: &random))
            case 2: bytes.insert(UInt8.random(in: 0...255, using: &random), at: Int.random(in: 0...bytes.count, using: &random))
            default: bytes = Array(bytes.prefix(Int.random(in: 0...bytes.count, using: &random)))
            }
        }
        return bytes
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomRequestsGetAPushOrAReason(seed: UInt64) throws {
        var random = Random(state: seed)
        let harness = try APNsEndpointHarness(strict: seed % 2 == 0, rateLimit: seed == 3 ? (5, .seconds(1)) : nil)
        let validJWT = try harness.token()
        let derJWT = try harness.token(der: true)
        let payloads: [[UInt8]] = [
            SamplePush.payload, Array(#"{"aps":{"alert":"x","badge":1},"k":[1,{"a":null}]}"#.utf8),
            Array(#"{"aps":{"content-available":1},"s":"\ud83d\ude00\n"}"#.utf8), [],
        ]
        let knownReasons = Set(APNsReason.allCases.map(\.rawValue))
        var statuses: [Int: Int] = [:]
        let connections = (0..<8).map { H2ConnectionInfo(id: UInt64($0), remoteAddress: "fuzz", tls: nil) }

        harness.endpoint.withDevices { $0.register(SamplePush.deviceToken, topics: [SamplePush.topic]) }
        let names = ["apns-topic", "apns-push-type", "apns-priority", "apns-expiration", "apns-collapse-id", "apns-id", "authorization", "x-other"]
        let valid = ["com.example.app", "background", "5", "0", "collapse", "123e4567-e89b-12d3-a456-4266554400a0", "bearer \(validJWT)", "x"]

        for _ in 0..<3_000 {
            // A valid push, then up to three random mutations (none in a quarter of cases).
            var method = "POST"
            var path = SamplePush.path
            var headers = Array(zip(names, valid))
            var body = payloads[0]
            for _ in 0..<[0, 1, 2, 3].randomElement(using: &random)! {
                switch Int.random(in: 0..<7, using: &random) {
                case 0:
                    method = ["GET", "PUT", Self.randomText(&random, maxLength: 6)].randomElement(using: &random)!
                case 1:
                    let token: String =
                        switch Int.random(in: 0..<3, using: &random) {
                        case 0:
                            String((0..<Int.random(in: 0...210, using: &random)).map { _ in "0123456789abcdefABCDEF".randomElement(using: &random)! })
                        case 1: String(decoding: Self.mutate(Array(SamplePush.deviceToken.utf8), &random), as: UTF8.self)
                        default: Self.randomText(&random, maxLength: 80)
                        }
                    path = Bool.random(using: &random) ? "/3/device/" + token : Self.randomText(&random, maxLength: 30)
                case 2, 3:
                    let index = Int.random(in: 0..<headers.count, using: &random)
                    let (name, value) = headers[index]
                    switch Int.random(in: 0..<5, using: &random) {
                    case 0: headers.remove(at: index)
                    case 1: headers.append((name, value))
                    case 2: headers[index].1 = String(decoding: Self.mutate(Array(value.utf8), &random), as: UTF8.self)
                    case 3: headers[index].1 = name == "authorization" ? "bearer \(derJWT)" : Self.randomText(&random, maxLength: 70)
                    default: headers[index].1 = Self.randomText(&random, maxLength: 300)
                    }
                case 4:
                    body = payloads.randomElement(using: &random)!
                case 5:
                    body = Self.mutate(payloads.randomElement(using: &random)!, &random)
                default:
                    body =
                        Bool.random(using: &random)
                        ? (0..<Int.random(in: 0...6000, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                        : Array(Self.randomText(&random, maxLength: 100).utf8)
                }
            }

            let response = harness.send(
                method: method, path: path, headers: headers, body: body, connection: connections.randomElement(using: &random)!)
            statuses[response.status, default: 0] += 1
            #expect(response.headers.first("apns-id").flatMap { UUID(uuidString: $0) } != nil)
            if response.status == 200 {
                #expect(response.body.isEmpty)
            } else {
                let reason = try #require(response.reason)
                #expect(knownReasons.contains(reason))
                #expect(APNsReason(rawValue: reason)?.status == response.status)
            }
            if Int.random(in: 0..<500, using: &random) == 0 { harness.advance(seconds: Int64.random(in: 0...4000, using: &random)) }
        }
        // The generator reaches both sides: some pushes get through, many reasons come back.
        #expect(statuses[200, default: 0] > 0)
        #expect(statuses.keys.count >= 5, "\(statuses)")
    }
}
