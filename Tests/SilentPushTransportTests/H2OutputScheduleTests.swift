import SilentPushTransport
import Testing

/// When output goes out, with no channel: every event from every state.
@Suite struct H2OutputScheduleTests {
    static func schedule(_ batch: H2OutputSchedule.Batch) -> H2OutputSchedule {
        var schedule = H2OutputSchedule()
        switch batch {
        case .idle: break
        case .reading: schedule.readBegan()
        case .scheduled: _ = schedule.outputQueued()
        }
        return schedule
    }

    @Test func outputDuringAReadWaitsForItsEnd() {
        var schedule = H2OutputSchedule()
        schedule.readBegan()
        let queued = schedule.outputQueued()
        #expect(!queued)
        schedule.readEnded()
        #expect(schedule.batch == .idle)
        // After the read, output needs a flush of its own: one task for a whole batch.
        let first = schedule.outputQueued()
        let second = schedule.outputQueued()
        #expect(first && !second)
        schedule.scheduledFlushRuns()
        #expect(schedule.batch == .idle)
    }

    @Test func readEventsFromEveryState() {
        for batch in [H2OutputSchedule.Batch.idle, .reading, .scheduled] {
            var schedule = Self.schedule(batch)
            schedule.readBegan()
            // A queued flush covers the read too.
            #expect(schedule.batch == (batch == .scheduled ? .scheduled : .reading), "\(batch)")
            schedule = Self.schedule(batch)
            schedule.readEnded()
            #expect(schedule.batch == (batch == .scheduled ? .scheduled : .idle), "\(batch)")
        }
    }

    @Test func onlyAnIdleScheduleQueuesAFlush() {
        for batch in [H2OutputSchedule.Batch.idle, .reading, .scheduled] {
            var schedule = Self.schedule(batch)
            let queued = schedule.outputQueued()
            #expect(queued == (batch == .idle), "\(batch)")
            #expect(schedule.batch == (batch == .idle ? .scheduled : batch), "\(batch)")
        }
    }

    @Test func theQueuedFlushEndsOnlyAScheduledBatch() {
        for batch in [H2OutputSchedule.Batch.idle, .reading, .scheduled] {
            var schedule = Self.schedule(batch)
            schedule.scheduledFlushRuns()
            #expect(schedule.batch == (batch == .scheduled ? .idle : batch), "\(batch)")
        }
    }

    @Test func aNestedFlushBecomesAnotherPass() {
        var schedule = H2OutputSchedule()
        let run = schedule.pumpWanted()
        #expect(run && schedule.pump == .pumping && schedule.isPumping)
        // From inside the pump: not run again, but asked for another pass (twice is once).
        let nested = schedule.pumpWanted()
        let nestedAgain = schedule.pumpWanted()
        #expect(!nested && !nestedAgain && schedule.pump == .pumpingAgain)
        let again = schedule.passEnded()
        #expect(again && schedule.pump == .pumping)
        let done = schedule.passEnded()
        #expect(!done && schedule.pump == .pumping)
        schedule.pumpStopped()
        #expect(schedule.pump == .idle && !schedule.isPumping)
    }

    @Test func aPassEndedWithNoPumpRunsNoOther() {
        var schedule = H2OutputSchedule()
        let again = schedule.passEnded()
        #expect(!again && schedule.pump == .idle)
    }

    @Test func batchingAndPumpingAreIndependent() {
        var schedule = H2OutputSchedule()
        _ = schedule.outputQueued()
        _ = schedule.pumpWanted()
        schedule.readBegan()
        #expect(schedule.batch == .scheduled && schedule.pump == .pumping)
        schedule.pumpStopped()
        #expect(schedule.batch == .scheduled)
    }
}
