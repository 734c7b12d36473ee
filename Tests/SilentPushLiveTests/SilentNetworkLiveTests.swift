import Foundation
import SilentPushCore
import SilentPushReceiver
import SilentPushStore
import SilentPushTestSupport
import SilentPushTesting
import Synchronization
import Testing

/// A network that goes silent between a receiver and PostgreSQL: no close and no reset, only a
/// relay (`TCPRelay`) that stops carrying bytes. A clustered receiver gives its session up
/// itself when a check goes unanswered; nothing it writes afterwards commits, so a push
/// waiting on a commit is answered 503; once the network is back, its close reaches the server,
/// the claims are free, and it joins again on a new session. A receiver standing alone gives
/// up the batch the server leaves unanswered, and a stopping one the whole store.
///
/// Across a real network the server also ends the session by its TCP keepalives (set by the
/// receiver, *assumed*); through the relay its kernel answers them, so here the session ends
/// only once the receiver's close arrives.
@Suite(.postgres, .serialized) struct SilentNetworkLiveTests {
    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        func raise() { value.store(true, ordering: .relaxed) }
        var isRaised: Bool { value.load(ordering: .relaxed) }
    }

    @Test func aSessionThatGoesSilentIsGivenUpByItsOwnTimeoutAndItsClaimsFreedWhenItsCloseArrives() async throws {
        let server = try #require(PostgresServer.current)
        let database = try await server.newDatabase()
        let relay = try await TCPRelay.start(to: server.port)
        let cut = try await PushStore.open(.postgres(try PostgresURL(server.url(database: database, through: relay.port))), clustered: true)
        let other = try await PushStore.open(.postgres(try PostgresURL(server.url(database: database))), clustered: true)
        let ended = Flag()
        cut.onSessionEnded { ended.raise() }
        try await cut.joinCluster(shards: 4, name: "cut", now: 0)
        #expect(try await cut.claimShards([0, 1], timeout: .seconds(5)) == [0, 1])
        try await other.joinCluster(shards: 4, name: "other", now: 0)
        #expect(try await other.claimShards([0, 1], timeout: .seconds(5)).isEmpty)

        try await relay.freeze()
        let frozen = ContinuousClock.now
        await #expect(throws: PushStoreError.sessionEnded) { try await cut.clusterLocks(timeout: .seconds(1)) }
        #expect(ContinuousClock.now - frozen < .seconds(5))
        #expect(ended.isRaised)
        // A session given up is not replaced: a write fails at once, on no other session.
        await #expect(throws: PushStoreError.sessionEnded) { try await cut.write([.setManualClock(at: 1)]) }
        // The server has not heard: the claims are still held.
        #expect(try await other.claimShards([0, 1], timeout: .seconds(5)).isEmpty)

        // The network comes back: the close the store sent arrives, the session ends, and
        // another member claims the shards.
        try await relay.thaw()
        var claimed: Set<Int> = []
        let thawed = ContinuousClock.now
        while claimed.count < 2, ContinuousClock.now - thawed < .seconds(10) {
            claimed.formUnion(try await other.claimShards([0, 1], timeout: .seconds(5)))
            if claimed.count < 2 { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(claimed == [0, 1])
        try await cut.close()
        try await other.close()
        await relay.close()
    }

    /// A receiver standing alone, its store gone silent: the batch a push waits on is given
    /// up (`PushStore.postgresBatchWatch`: unanswered for 2 s, and the server, asked on a
    /// session of its own, silent for 2 s more), so the push is answered 503, and the next at
    /// once; once the network is back the receiver serves again on a new session, with no
    /// restart.
    @Test func aLoneReceiversPushWaitingOnASilentStoreIsAnswered503AndItServesAgainOnceTheNetworkIsBack() async throws {
        let server = try #require(PostgresServer.current)
        let database = try await server.newDatabase()
        let relay = try await TCPRelay.start(to: server.port)
        let url = try PostgresURL(server.url(database: database, through: relay.port))
        // A receiver that waits on the store for ever: the network comes back after 20 s, so
        // that the pushes' times fail the test rather than hang it.
        let backstop = relay.thaw(after: .seconds(20))
        defer { backstop.cancel() }
        try await Receiver.withTesting({ $0.store = .postgres(url) }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            let before = try await client.push()
            #expect(before.status == 200)

            try await relay.freeze()
            var silent: [String] = []
            // The first waits on its batch; the next is answered at once, the store known to
            // take no writes (a probe a second tries it, on the one attempt to open a session).
            for (shortest, longest) in [(PushStore.postgresBatchWatch, Duration.seconds(6)), (.zero, .seconds(1))] {
                let start = ContinuousClock.now
                let answer = try await client.push()
                let took = ContinuousClock.now - start
                #expect(answer.status == 503 && answer.reason == .serviceUnavailable, "\(answer)")
                #expect(took >= shortest && took < longest, "answered after \(took)")
                silent.append(answer.apnsID)
            }

            try await relay.thaw()
            let thawed = ContinuousClock.now
            var after: TestPushResponse?
            while after == nil, ContinuousClock.now - thawed < .seconds(15) {
                let answer = try await client.push()
                if answer.status == 200 { after = answer } else { try await Task.sleep(for: .milliseconds(100)) }
            }
            let served = try #require(after, "served again on a new session")
            await receiver.settle()
            #expect(try await receiver.device.push(apnsID: before.apnsID) != nil)
            #expect(try await receiver.device.push(apnsID: served.apnsID) != nil)
            for id in silent { #expect(try await receiver.device.push(apnsID: id) == nil, "answered 503, yet recorded") }
        }
        await relay.close()
    }

    /// A receiver told to stop while its store is silent stops once the store's watches give
    /// up what waits on it: the push waiting on its commit is never answered 200, and the
    /// admin API read waiting on the store fails (`readUnanswered`), so neither holds the stop
    /// until the store itself is given up.
    @Test func aReceiverWhoseStoreWentSilentStopsOnceItsWatchesGiveUp() async throws {
        let server = try #require(PostgresServer.current)
        let database = try await server.newDatabase()
        let relay = try await TCPRelay.start(to: server.port)
        let url = try PostgresURL(server.url(database: database, through: relay.port))
        let stopped = Mutex<ContinuousClock.Instant?>(nil)
        let waiting = Mutex<Task<TestPushResponse?, Never>?>(nil)
        let reading = Mutex<Task<Int?, Never>?>(nil)
        var before = ""
        // A receiver that gives nothing up would wait on the store for ever: the network
        // comes back after 20 s, so that the stop's time fails the test rather than hang it.
        let backstop = relay.thaw(after: .seconds(20))
        defer { backstop.cancel() }
        try await Receiver.withTesting({
            $0.store = .postgres(url)
            $0.shutdownGrace = .seconds(1)
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            let answered = try await client.push()
            #expect(answered.status == 200)
            before = answered.apnsID
            let admin = try #require(receiver.adminPort)
            try await relay.freeze()
            waiting.withLock { $0 = Task { try? await client.push() } }
            reading.withLock { [before] in $0 = Task { try? await SilentPushdDeviceTests.admin(admin, "GET", "/v1/pushes/\(before)").status } }
            try await Task.sleep(for: .milliseconds(300))
            stopped.withLock { $0 = .now }
        }
        let took = ContinuousClock.now - (try #require(stopped.withLock { $0 }))
        // The watches look after 2 s, and give up after as long again without an answer.
        #expect(took < .seconds(6), "stopped \(took) after it was told to: before the store itself is given up")
        let cut = await waiting.withLock { $0 }?.value
        #expect(cut?.status != 200, "a push waiting on its commit is never answered 200: \(String(describing: cut))")
        let read = await reading.withLock { $0 }?.value
        #expect(read == 503, "the read waiting on the store is given up: \(String(describing: read))")
        try await relay.thaw()
        await relay.close()
        // What was answered 200 is in the store.
        let store = try await PushStore.open(.postgres(try PostgresURL(server.url(database: database))))
        #expect(try await store.push(apnsID: before) != nil)
        try await store.close()
    }

    /// A receiver told to stop while its store keeps a commit and a read waiting (here behind
    /// a lock another session holds: the server says it runs them, so their watches wait on)
    /// still stops. The push waiting on its commit is cut at the shutdown grace (never answered
    /// 200); the admin API read holds the admin API's stop until, at the grace's end and
    /// `storeGrace` (5 s) more, the store is given up; `run()` then throws, saying so.
    @Test func aReceiverWhoseStoreKeepsItWaitingStopsAtItsShutdownGraceAndFiveSecondsMoreAndSaysWhy() async throws {
        let server = try #require(PostgresServer.current)
        let database = try await server.newDatabase()
        let url = try PostgresURL(server.url(database: database))
        let stopped = Mutex<ContinuousClock.Instant?>(nil)
        let waiting = Mutex<Task<TestPushResponse?, Never>?>(nil)
        let reading = Mutex<Task<Int?, Never>?>(nil)
        let holder = Mutex<Task<PeerResult, any Error>?>(nil)
        var before = ""
        let error = await #expect(throws: ReceiverStartError.self) {
            try await Receiver.withTesting({
                $0.store = .postgres(url)
                $0.shutdownGrace = .seconds(1)
            }) { receiver in
                let client = try await TestPushClient.connect(to: receiver)
                let answered = try await client.push()
                #expect(answered.status == 200)
                before = answered.apnsID
                let admin = try #require(receiver.adminPort)
                // Another session holds the pushes table for 12 s: the next commit and a read
                // of a push wait on it.
                holder.withLock {
                    $0 = Task {
                        try await server.psql(
                            "BEGIN; LOCK TABLE pushes IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(12); COMMIT", database: database)
                    }
                }
                var locked = false
                for _ in 0..<100 where !locked {
                    locked = try await server.psql(
                        "SELECT 1 FROM pg_locks WHERE relation = 'pushes'::regclass AND mode = 'AccessExclusiveLock' AND granted",
                        database: database
                    ).output.hasPrefix("1")
                    if !locked { try await Task.sleep(for: .milliseconds(50)) }
                }
                try #require(locked)
                waiting.withLock { $0 = Task { try? await client.push() } }
                reading.withLock { [before] in $0 = Task { try? await SilentPushdDeviceTests.admin(admin, "GET", "/v1/pushes/\(before)").status } }
                try await Task.sleep(for: .milliseconds(300))
                stopped.withLock { $0 = .now }
            }
        }
        let took = ContinuousClock.now - (try #require(stopped.withLock { $0 }))
        #expect(took >= .seconds(6) && took < .seconds(9), "stopped \(took) after it was told to")
        guard case .store(let cause as PushStoreError)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(cause == .abandoned(after: .seconds(6)))
        #expect("\(try #require(error))".hasPrefix("the store did not answer within 6.0 seconds of the stop"))
        let cut = await waiting.withLock { $0 }?.value
        #expect(cut?.status != 200, "a push waiting on its commit is never answered 200: \(String(describing: cut))")
        let read = await reading.withLock { $0 }?.value
        #expect(read != 200, "the read waiting on the store fails as it is given up: \(String(describing: read))")
        #expect(try await holder.withLock { $0 }?.value.status == 0)
        // What was answered 200 is in the store.
        let store = try await PushStore.open(.postgres(url))
        #expect(try await store.push(apnsID: before) != nil)
        try await store.close()
    }

    @Test func aPushWaitingOnASilentStoreIsAnswered503AndTheReceiverServesAgainOnceTheNetworkIsBack() async throws {
        let server = try #require(PostgresServer.current)
        let database = try await server.newDatabase()
        let relay = try await TCPRelay.start(to: server.port)
        let url = try PostgresURL(server.url(database: database, through: relay.port))
        try await Receiver.withTesting({
            $0.store = .postgres(url)
            $0.cluster = ClusterConfiguration(shards: 2, claimInterval: .milliseconds(200))
        }) { receiver in
            let client = try await TestPushClient.connect(to: receiver)
            defer { Task { await client.close() } }
            // Alone in the cluster, the receiver claims every shard within a few intervals.
            func servedWithin(_ limit: Duration) async throws -> String? {
                let start = ContinuousClock.now
                while ContinuousClock.now - start < limit {
                    let answer = try await client.push()
                    if answer.status == 200 { return answer.apnsID }
                    try await Task.sleep(for: .milliseconds(100))
                }
                return nil
            }
            let before = try #require(try await servedWithin(.seconds(10)))

            try await relay.freeze()
            let frozen = ContinuousClock.now
            let silent = try await client.push()
            // The commit never comes back; within the lease (1 s) and a claim interval the
            // receiver gives the session up, lets its devices go, and answers 503.
            #expect(silent.status == 503 && silent.reason == .serviceUnavailable, "\(silent)")
            #expect(ContinuousClock.now - frozen < .seconds(5))
            #expect(try await client.push().status == 503, "no device is this receiver's while the session is gone")

            try await relay.thaw()
            let after = try #require(try await servedWithin(.seconds(15)), "served again on a new session")
            await receiver.settle()
            // Each push answered 200 is recorded once; the ones answered 503 are not.
            #expect(try await receiver.device.push(apnsID: before) != nil)
            #expect(try await receiver.device.push(apnsID: after) != nil)
            #expect(try await receiver.device.push(apnsID: silent.apnsID) == nil)
        }
        await relay.close()
    }
}
