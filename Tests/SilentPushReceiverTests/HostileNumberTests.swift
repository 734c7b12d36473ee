import SilentPushCore
import SilentPushReceiver
import SilentPushTesting
import Testing

/// Numbers from outside at the edges of their types: answered, never a trap (issue 16,
/// defects 1 to 3).
@Suite struct HostileNumberTests {
    static let minute = Duration.seconds(60)

    /// Each of these trapped the receiver, or (wrapping) expired the push at once.
    @Test(arguments: ["1767225600000", "253402300799", "9223372036854775807"])
    func aFarFutureExpirationNeitherTrapsNorExpires(expiration: String) async throws {
        try await Receiver.withTesting({ $0.wakeSettings = WakeSettings(minimumInterval: .seconds(15 * 60)) }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            let first = try await client.push(apnsID: "00000000-0000-4000-8000-000000000001")
            #expect(first.status == 200)
            let far = try await client.push(expiration: Int64(expiration)!, apnsID: "00000000-0000-4000-8000-000000000002")
            #expect(far.status == 200)
            await receiver.settle()
            #expect(try await receiver.fate(of: "00000000-0000-4000-8000-000000000002") == .pending)
            #expect(try await receiver.fate(of: "00000000-0000-4000-8000-000000000002")?.waitReason?.rule == .minimumInterval)
            let record = try #require(try await receiver.device.push(apnsID: "00000000-0000-4000-8000-000000000002"))
            #expect(record.expiresAt == nil)  // far future: held, never expires
            try await receiver.advanceClock(by: Self.minute * 15)
            await receiver.settle()
            let wake = try #require(try await receiver.wakes().last)
            #expect(try await receiver.fate(of: "00000000-0000-4000-8000-000000000002") == .delivered)
            #expect(try await receiver.fate(of: "00000000-0000-4000-8000-000000000002")?.wakeID == wake.id)
        }
    }

    /// Advancing the manual clock past 2262 is refused; it trapped after a few dozen ten-year steps.
    @Test func theManualClockStopsShortOfTheEndOfItsRange() async throws {
        try await Receiver.withTesting { receiver in
            let before = receiver.device.clock.now
            await #expect(throws: DeviceClockError.outOfRange) { try await receiver.device.advance(by: .seconds(Int64.max)) }
            #expect(receiver.device.clock.now == before)
            var steps = 0
            while (try? await receiver.device.advance(by: .seconds(10 * 365 * 86400))) != nil, steps < 100 { steps += 1 }
            #expect(steps > 0 && steps < 30)
            #expect(receiver.device.clock.now < .distantFuture)
        }
    }

    @Test(arguments: ["-1", "18446744073709551616", "1e9", "12abc", "", " 5"])
    func anExpirationThatIsNotAWholeNumberIsBadExpirationDate(expiration: String) throws {
        let harness = try APNsEndpointHarness()
        let answer = harness.send(headers: SamplePush.headers(jwt: try harness.token()) + [("apns-expiration", expiration)])
        #expect(answer.status == 400)
        #expect(answer.reason == "BadExpirationDate")
    }

    /// RFC 7519 NumericDate: PyAPNs2 and the `apns2` module send `iat = time.time()`.
    @Test func iatAsAFractionOrExponentIsAccepted() throws {
        let harness = try APNsEndpointHarness()
        let now = String(harness.now)
        let forms = ["\(now).734912", "\(now).0", "\(now.prefix(1)).\(now.dropFirst())e\(now.count - 1)", "\"\(now).5\""]
        for form in forms {
            let jwt = try DevProviderToken.make(iatJSON: form)
            let answer = harness.send(headers: SamplePush.headers(jwt: jwt))
            #expect(answer.status == 200, "iat \(form): \(answer.reason ?? "")")
        }
        // Compared at second precision: a fraction does not make a fresh token look future.
        let justIssued = try DevProviderToken.make(iatJSON: "\(harness.now + 300).999")
        #expect(harness.send(headers: SamplePush.headers(jwt: justIssued)).status == 200)
    }

    /// These trapped the authenticator (`-9223372036854775808`) or overflowed its comparisons.
    @Test(arguments: [
        "-9223372036854775808", "9223372036854775807", "\"-9223372036854775808\"", "1e999", "-1e999",
        "253402300800", "-1", "1e300", "true", "null", "\"soon\"",
    ])
    func iatOutsideTheSaneRangeIsInvalidProviderToken(iat: String) throws {
        let harness = try APNsEndpointHarness()
        let answer = harness.send(headers: SamplePush.headers(jwt: try DevProviderToken.make(iatJSON: iat)))
        #expect(answer.status == 403)
        #expect(answer.reason == "InvalidProviderToken")
    }
}
