import SilentPushCore
import SilentPushReceiver
import SilentPushTesting
import SilentPushTransport
import Testing

/// Rules that need more than one request: per connection, per token, over time.
@Suite struct APNsConnectionRuleTests {
    static func connection(_ id: UInt64) -> H2ConnectionInfo {
        H2ConnectionInfo(id: id, remoteAddress: "test", tls: nil)
    }

    @Test func switchingTokensSoonerThan20MinutesIsTooManyProviderTokenUpdates() throws {
        let harness = try APNsEndpointHarness()
        let connection = Self.connection(1)
        let first = try harness.token()
        #expect(harness.send(headers: SamplePush.headers(jwt: first), connection: connection).status == 200)

        harness.advance(seconds: 19 * 60)
        let second = try harness.token()
        let early = harness.send(headers: SamplePush.headers(jwt: second), connection: connection)
        #expect(early.status == 429)
        #expect(early.reason == "TooManyProviderTokenUpdates")
        // The first token still works on this connection, and the new one on another.
        #expect(harness.send(headers: SamplePush.headers(jwt: first), connection: connection).status == 200)
        #expect(harness.send(headers: SamplePush.headers(jwt: second), connection: Self.connection(2)).status == 200)

        harness.advance(seconds: 2 * 60)
        #expect(harness.send(headers: SamplePush.headers(jwt: second), connection: connection).status == 200)
    }

    /// What counts as an update is a token made sooner than 20 minutes after the current
    /// one, as the clients' refresh schedules assume: a connection opened late in a token's
    /// life takes the next token at once (aioapns refreshes at 30 minutes, node-apn at 55), a
    /// token re-signed with the same iat is the same token, and an expired token gives way.
    @Test func aTokenUpdateIsJudgedByWhenTheTokensWereMade() throws {
        let harness = try APNsEndpointHarness()
        let late = Self.connection(1)
        #expect(harness.send(headers: SamplePush.headers(jwt: try harness.token(age: 29 * 60)), connection: late).status == 200)
        harness.advance(seconds: 60)
        #expect(harness.send(headers: SamplePush.headers(jwt: try harness.token()), connection: late).status == 200)
        // The same iat and key, signed again: not an update.
        let resigned = Self.connection(2)
        #expect(harness.send(headers: SamplePush.headers(jwt: try harness.token(age: 10)), connection: resigned).status == 200)
        #expect(harness.send(headers: SamplePush.headers(jwt: try harness.token(age: 10)), connection: resigned).status == 200)
        // A new token made 5 minutes after the current one, taken 5 minutes ago: too soon.
        harness.advance(seconds: 5 * 60)
        let soon = harness.send(headers: SamplePush.headers(jwt: try harness.token()), connection: resigned)
        #expect(soon.reason == "TooManyProviderTokenUpdates")
        // Once the current token has expired, the next is taken whenever it was made.
        let expiring = Self.connection(3)
        #expect(harness.send(headers: SamplePush.headers(jwt: try harness.token(age: 59 * 60 + 55)), connection: expiring).status == 200)
        harness.advance(seconds: 10)
        #expect(
            harness.send(headers: SamplePush.headers(jwt: try harness.token(age: 59 * 60 + 65)), connection: expiring).reason
                == "ExpiredProviderToken")
        #expect(harness.send(headers: SamplePush.headers(jwt: try harness.token()), connection: expiring).status == 200)
    }

    @Test func theRequestsOfOneReadReachTheSinkUnderOneHold() throws {
        let harness = try APNsEndpointHarness()
        let connection = Self.connection(1)
        let jwt = try harness.token()
        harness.endpoint.readBegan()
        for _ in 0..<3 { #expect(harness.send(headers: SamplePush.headers(jwt: jwt), connection: connection).status == 200) }
        harness.endpoint.readEnded()
        #expect(harness.sink.lock.withLock { harness.sink.events } == ["hold", "push", "push", "push", "release"])
    }

    @Test func oneTeamPerConnection() throws {
        let harness = try APNsEndpointHarness()
        let connection = Self.connection(1)
        #expect(harness.send(headers: SamplePush.headers(jwt: try harness.token()), connection: connection).status == 200)
        harness.advance(seconds: 30 * 60)
        let other = harness.send(
            headers: SamplePush.headers(jwt: try harness.token(keyID: "OTHERTEAM1", teamID: "OTHERTEAM0")), connection: connection)
        #expect(other.status == 403)
        #expect(other.reason == "UnrelatedKeyIdInToken")
    }

    @Test func aTokenExpiresWhileInUse() throws {
        let harness = try APNsEndpointHarness()
        let connection = Self.connection(1)
        let token = try harness.token()
        #expect(harness.send(headers: SamplePush.headers(jwt: token), connection: connection).status == 200)
        harness.advance(seconds: 61 * 60)
        let late = harness.send(headers: SamplePush.headers(jwt: token), connection: connection)
        #expect(late.reason == "ExpiredProviderToken")
    }

    /// A token whose signature fails is verified once, however often a provider sends it
    /// (the check is the costly part); each request is still refused `InvalidProviderToken`.
    @Test func aBadSignatureIsCheckedOncePerToken() throws {
        var verifications = 0
        var cache = BoundedCache<Substring, VerifiedProviderToken>(capacity: 16)
        var refused = BoundedCache<Substring, Void>(capacity: 16)
        let authenticator = ProviderTokenAuthenticator(environment: .sandbox)
        let good = try DevProviderToken.make(issuedAt: 1_000)
        // The same header and claims, another signature.
        let jwt = good.dropLast(4) + (good.hasSuffix("AAAA") ? "BBBB" : "AAAA")
        var reasons: [APNsReason] = []
        for _ in 0..<100 {
            var connection = ProviderTokenConnectionState()
            do {
                _ = try authenticator.authenticate(
                    authorization: Substring("bearer \(jwt)"), connection: &connection, now: 1_100,
                    lookupKey: { $0 == "DEVKEY0001" ? ProviderKey(keyID: $0, teamID: "DEVTEAM001") : nil },
                    verify: { _, _ in
                        verifications += 1
                        return false
                    },
                    cache: &cache, refused: &refused)
            } catch {
                reasons.append(error)
            }
        }
        #expect(reasons == Array(repeating: .invalidProviderToken, count: 100))
        #expect(verifications == 1 && refused.count == 1 && cache.count == 0)
    }

    @Test func theSignatureIsCheckedOncePerToken() throws {
        var verifications = 0
        var cache = BoundedCache<Substring, VerifiedProviderToken>(capacity: 16)
        var refused = BoundedCache<Substring, Void>(capacity: 16)
        let authenticator = ProviderTokenAuthenticator(environment: .sandbox)
        let jwt = try DevProviderToken.make(issuedAt: 1_000)
        let key = try ES256Key.load(file: DevCertificates.authKey)
        var connections = (0..<4).map { _ in ProviderTokenConnectionState() }
        for index in 0..<400 {
            _ = try authenticator.authenticate(
                authorization: Substring("bearer \(jwt)"), connection: &connections[index % 4], now: 1_100,
                lookupKey: { $0 == "DEVKEY0001" ? ProviderKey(keyID: $0, teamID: "DEVTEAM001") : nil },
                verify: { token, _ in
                    verifications += 1
                    return key.verify(signature: token.signature, message: token.signingInput)
                },
                cache: &cache, refused: &refused)
        }
        #expect(verifications == 1)
        #expect(cache.count == 1)
    }

    @Test func aPublicKeyPEMVerifiesTokensOfItsPrivateKey() async throws {
        let publicKey = DevCertificates.directory + "/AuthKey_DEVKEY0001.pub.pem"
        try await Receiver.withTesting({ $0.authKeys = [AuthKeySpec(keyID: "DEVKEY0001", teamID: "DEVTEAM001", path: publicKey)] }) { receiver in
            let connection = try await H2ClientConnection.connect(host: "127.0.0.1", port: receiver.h2cPort!, tls: nil)
            let request = H2Request(
                method: "POST", path: SamplePush.path,
                headers: SamplePush.headerList(jwt: try DevProviderToken.make()), body: SamplePush.payload)
            #expect(try await connection.send(request).status == 200)
            let forged = H2Request(
                method: "POST", path: SamplePush.path,
                headers: SamplePush.headerList(jwt: try DevProviderToken.make(keyFile: DevCertificates.serverKey)),
                body: SamplePush.payload)
            let refused = try await connection.send(forged)
            #expect(refused.status == 403)
            await connection.close()
        }
    }

    @Test func theRateLimitAnswersTooManyRequests() throws {
        let harness = try APNsEndpointHarness(rateLimit: (2, .seconds(60)))
        let headers = SamplePush.headers(jwt: try harness.token())
        #expect(harness.send(headers: headers).status == 200)
        #expect(harness.send(headers: headers).status == 200)
        let third = harness.send(headers: headers)
        #expect(third.status == 429)
        #expect(third.reason == "TooManyRequests")
        harness.advance(seconds: 30)
        #expect(harness.send(headers: headers).status == 200)
    }

    @Test func registeredOnlyModeRefusesUnknownTokens() throws {
        let harness = try APNsEndpointHarness(mode: .registeredOnly)
        let headers = SamplePush.headers(jwt: try harness.token())
        #expect(harness.send(headers: headers).reason == "BadDeviceToken")
        harness.endpoint.withDevices { $0.register(SamplePush.deviceToken, topics: [SamplePush.topic]) }
        #expect(harness.send(headers: headers).status == 200)
    }

    /// Live Activity tokens are not device tokens: a push-to-start token is admitted or refused
    /// as its device is, and an update token is left to the device's policy.
    @Test func registeredOnlyModeJudgesALiveActivityTokenByItsDevice() throws {
        let harness = try APNsEndpointHarness(mode: .registeredOnly)
        let jwt = try harness.token()
        let topic = SamplePush.topic + ".push-type.liveactivity"
        let headers = SamplePush.headers(jwt: jwt).map {
            switch $0.0 {
            case "apns-topic": ($0.0, topic)
            case "apns-push-type": ($0.0, "liveactivity")
            case "apns-priority": ($0.0, "10")
            default: $0
            }
        }
        let start = Array(
            #"{"aps":{"event":"start","timestamp":1,"content-state":{},"attributes-type":"A","attributes":{},"alert":{"title":"t"}}}"#.utf8)
        let toStart = LiveActivityApp(device: SamplePush.deviceToken, bundleID: SamplePush.topic).pushToStartToken
        let otherDevice = LiveActivityApp(device: String(repeating: "ab", count: 32), bundleID: SamplePush.topic).pushToStartToken
        #expect(harness.send(path: "/3/device/\(toStart)", headers: headers, body: start).reason == "BadDeviceToken")
        harness.endpoint.withDevices { $0.register(SamplePush.deviceToken, topics: [SamplePush.topic]) }
        #expect(harness.send(path: "/3/device/\(toStart)", headers: headers, body: start).status == 200)
        #expect(harness.send(path: "/3/device/\(otherDevice)", headers: headers, body: start).reason == "BadDeviceToken")
        let update = Array(#"{"aps":{"event":"update","timestamp":2,"content-state":{}}}"#.utf8)
        #expect(harness.send(path: "/3/device/\(String(repeating: "5", count: 64))", headers: headers, body: update).status == 200)
        harness.endpoint.withDevices { $0.unregister(SamplePush.deviceToken, at: 1_000) }
        #expect(harness.send(path: "/3/device/\(toStart)", headers: headers, body: start).reason == "Unregistered")
    }

    @Test func oneDeviceTokenServesSeveralAppsUntilRegistered() throws {
        let harness = try APNsEndpointHarness()
        let token = try harness.token()
        let otherApp = SamplePush.headers(jwt: token).map { $0.0 == "apns-topic" ? ($0.0, "com.example.other") : $0 }
        #expect(harness.send(headers: SamplePush.headers(jwt: token)).status == 200)
        #expect(harness.send(headers: otherApp).status == 200)
        harness.endpoint.withDevices { $0.register(SamplePush.deviceToken, topics: [SamplePush.topic]) }
        #expect(harness.send(headers: otherApp).reason == "DeviceTokenNotForTopic")
    }

    @Test func whatAPNsToleratesIsAcceptedWithAWarning() throws {
        let harness = try APNsEndpointHarness()
        var headers = SamplePush.headers(jwt: try harness.token()).filter { $0.0 != "apns-priority" && $0.0 != "apns-push-type" }
        headers.append(("apns-priority", "10"))
        #expect(harness.send(headers: headers).status == 200)
        let push = try #require(harness.sink.accepted.first)
        #expect(push.pushType == .background)
        #expect(push.priority == .high)
        #expect(push.warnings.contains { $0.contains("apns-push-type missing") })
        #expect(push.warnings.contains { $0.contains("priority 10 on a background push") })
        #expect(push.neverWakesReason == nil)
    }

    @Test func aBackgroundPushWithoutContentAvailableIsAcceptedButNeverWakes() throws {
        let harness = try APNsEndpointHarness()
        let response = harness.send(headers: SamplePush.headers(jwt: try harness.token()), body: Array(#"{"aps":{},"feed":"x"}"#.utf8))
        #expect(response.status == 200)
        let push = try #require(harness.sink.accepted.first)
        #expect(push.neverWakesReason == .backgroundWithoutContentAvailable)
        #expect(push.payload.customValue("feed") == "x")
    }
}
