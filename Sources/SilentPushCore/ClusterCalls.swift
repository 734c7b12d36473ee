/// The calls a cluster member sent the others (move the clock, reset, take the fault
/// rules) and is waiting on. A call is answered once every member that was live when it was
/// sent has answered it or has left the cluster (its session ended: it holds no device any
/// more), or when it is given up. Members are named by their writer session. Pure: each
/// event returns what to answer; the caller keeps the waiting tasks.
package struct ClusterCalls: Sendable, Equatable {
    /// A member that answered a call with a failure, or never answered it.
    package struct Failure: Sendable, Equatable {
        package var member: Int32
        package var reason: String

        /// A failure.
        package init(member: Int32, reason: String) {
            self.member = member
            self.reason = reason
        }
    }

    /// A call answered: by whom it failed (empty: every member did as asked).
    package struct Answer: Sendable, Equatable {
        package var call: UInt64
        package var failures: [Failure]

        /// An answer.
        package init(call: UInt64, failures: [Failure]) {
            self.call = call
            self.failures = failures
        }
    }

    private struct Call: Sendable, Equatable {
        var awaiting: Set<Int32>
        var failures: [Failure] = []
    }

    private var calls: [UInt64: Call] = [:]
    private var nextID: UInt64 = 1

    /// No call.
    package init() {}

    /// Calls waiting for answers.
    package var open: Int { calls.count }

    /// A call sent to `members` (the live members but this one): its id, and its answer when
    /// there is no one to wait for.
    package mutating func send(to members: Set<Int32>) -> (call: UInt64, answer: Answer?) {
        let id = nextID
        nextID &+= 1
        guard !members.isEmpty else { return (id, Answer(call: id, failures: [])) }
        calls[id] = Call(awaiting: members)
        return (id, nil)
    }

    /// `member` answered `call` (with `failure`, if it could not do it).
    package mutating func answered(_ call: UInt64, by member: Int32, failure: String?) -> Answer? {
        guard var pending = calls[call], pending.awaiting.remove(member) != nil else { return nil }
        if let failure { pending.failures.append(Failure(member: member, reason: failure)) }
        calls[call] = pending
        return finishIfAnswered(call)
    }

    /// The members live now: a member that left answers nothing any more, and is not waited for.
    package mutating func live(_ members: Set<Int32>) -> [Answer] {
        for id in calls.keys.sorted() { calls[id]?.awaiting.formIntersection(members) }
        var answers: [Answer] = []
        for id in calls.keys.sorted() {
            if let answer = finishIfAnswered(id) { answers.append(answer) }
        }
        return answers
    }

    /// Gives up on `call`: every member still awaited failed with `reason`.
    package mutating func giveUp(_ call: UInt64, reason: String) -> Answer? {
        guard var pending = calls.removeValue(forKey: call) else { return nil }
        pending.failures += pending.awaiting.sorted().map { Failure(member: $0, reason: reason) }
        return Answer(call: call, failures: pending.failures)
    }

    private mutating func finishIfAnswered(_ call: UInt64) -> Answer? {
        guard let pending = calls[call], pending.awaiting.isEmpty else { return nil }
        calls[call] = nil
        return Answer(call: call, failures: pending.failures)
    }
}
