import SilentPushCore
import Testing

/// A call waits for every member live when it was sent: each answers, or leaves, or the
/// caller gives up on it; failures are kept with who failed.
struct ClusterCallsTests {
    @Test func aCallToNoOneIsAnsweredAtOnce() {
        var calls = ClusterCalls()
        let (call, answer) = calls.send(to: [])
        #expect(answer == ClusterCalls.Answer(call: call, failures: []))
        #expect(calls.open == 0)
    }

    @Test func aCallIsAnsweredOnceEveryMemberHasAnsweredItAndKeepsTheFailures() {
        var calls = ClusterCalls()
        let (call, answer) = calls.send(to: [11, 12, 13])
        #expect(answer == nil)
        #expect(calls.answered(call, by: 11, failure: nil) == nil)
        #expect(calls.answered(call, by: 12, failure: "its clock is the system's") == nil)
        // A second answer from a member, or one from a member not asked, changes nothing.
        #expect(calls.answered(call, by: 12, failure: nil) == nil)
        #expect(calls.answered(call, by: 99, failure: nil) == nil)
        let done = calls.answered(call, by: 13, failure: nil)
        #expect(done == ClusterCalls.Answer(call: call, failures: [.init(member: 12, reason: "its clock is the system's")]))
        #expect(calls.open == 0)
        // An answer after the call is done is ignored.
        #expect(calls.answered(call, by: 13, failure: nil) == nil)
    }

    @Test func aMemberThatLeftIsNotWaitedFor() {
        var calls = ClusterCalls()
        let (first, _) = calls.send(to: [11, 12])
        let (second, _) = calls.send(to: [12])
        #expect(first != second)
        #expect(calls.answered(first, by: 11, failure: nil) == nil)
        // 12's session ended: both calls are answered, without a failure (it holds no device).
        #expect(calls.live([11, 13]) == [ClusterCalls.Answer(call: first, failures: []), ClusterCalls.Answer(call: second, failures: [])])
        #expect(calls.open == 0)
    }

    @Test func givingUpFailsEveryMemberStillAwaited() {
        var calls = ClusterCalls()
        let (call, _) = calls.send(to: [11, 12, 13])
        _ = calls.answered(call, by: 12, failure: nil)
        #expect(
            calls.giveUp(call, reason: "did not answer")
                == ClusterCalls.Answer(
                    call: call, failures: [.init(member: 11, reason: "did not answer"), .init(member: 13, reason: "did not answer")]))
        #expect(calls.giveUp(call, reason: "again") == nil)
        #expect(calls.live([]) == [])
    }
}
