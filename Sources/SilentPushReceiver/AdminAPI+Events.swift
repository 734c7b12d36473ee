import Hummingbird
import NIOCore
import ServiceLifecycle
import SilentPushCore
import Synchronization

/// `GET /v1/events`: server-sent events (`text/event-stream`) that say when the record
/// changed, so a page fetches what it shows only then, instead of polling. Each `change`
/// event carries `{"changes", "clock", "now"}`; a comment line keeps idle connections open
/// through proxies. The stream ends when the receiver shuts down, or after `limit` events.
extension AdminAPI {
    /// How often a stream looks for changes: at most this many events a second per client,
    /// however fast pushes arrive.
    static let eventInterval = Duration.milliseconds(250)
    /// A comment after this many quiet looks (15 s), so proxies keep the connection.
    static let keepAliveTicks = 60

    func addEventRoutes(to router: Router<BasicRequestContext>) {
        router.getWithHead("/v1/events") { request, _ in await self.events(request.uri.queryParameters) }
    }

    /// The most events one request may ask for before its stream ends.
    static let maximumEventLimit = 10_000

    /// Event streams open at once (*assumed*: a page holds one): a stream is never idle, so
    /// without a cap they could hold every connection the admin API serves
    /// (`AdminListener.maximumConnections`) and leave none for its other requests.
    static let maximumEventStreams = 16

    /// How long a stream refused for want of a place waits for the streams' probe (each
    /// writes twice, a look apart) to free the places of clients that left.
    static let probeWait = Duration.milliseconds(800)

    /// The stream; with `limit`, it ends after that many events (a client that wants a
    /// snapshot, or a checker that reads to the end).
    private func events(_ query: Hummingbird.Parameters) async -> Response {
        var limit: Int?
        if let text = query["limit"] {
            guard let value = Int(text), (1...Self.maximumEventLimit).contains(value) else {
                return Self.error(.unprocessableContent, "limit must be a whole number from 1 to \(Self.maximumEventLimit)")
            }
            limit = value
        }
        let device = device
        let eventLimit = limit
        let streams = eventStreams
        var taken = EventStreamSlot(counting: streams)
        if taken == nil {
            // Every place is held, perhaps by streams whose clients left unseen (a stream finds
            // out only when a write fails): each is asked to write now, and the place asked for
            // again as they end.
            streams.probes.add(1, ordering: .relaxed)
            let deadline = ContinuousClock.now + Self.probeWait
            while taken == nil, ContinuousClock.now < deadline, !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(50))
                taken = EventStreamSlot(counting: streams)
            }
        }
        guard let slot = taken else {
            return Self.error(
                .serviceUnavailable,
                "there are \(Self.maximumEventStreams) event streams open already: close one (each timeline page holds one)")
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
            body: ResponseBody { writer in
                withExtendedLifetime(slot) {}
                // A shutdown ends the stream within a tick (the page reconnects to the next
                // receiver), after a last look: the admin API stops after the device side's
                // drain, whose last commits (a wake's end) are news too. A client that went
                // away ends it too (a write throws).
                let stopping = Atomic(false)
                try await withGracefulShutdownHandler {
                    try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
                    var sent: (changes: UInt64, now: Int64)?
                    var quiet = 0
                    var events = 0
                    // Writes a probe still asks of this stream: two, since the first write to
                    // a client that left draws only its reset, and the second fails.
                    var probed = streams.probes.load(ordering: .relaxed)
                    var owed = 0
                    while !Task.isCancelled, events < eventLimit ?? .max {
                        let lastLook = stopping.load(ordering: .relaxed)
                        let probe = streams.probes.load(ordering: .relaxed)
                        if probe != probed { (probed, owed) = (probe, 2) }
                        let changes = device.changes
                        // On the manual clock, a move of the clock is news too.
                        let now = device.clock.now.millisecondsSinceEpoch
                        let clockMoved = device.clock.mode == .manual && sent?.now != now
                        if sent?.changes != changes || clockMoved {
                            // Sent once committed, so what the page then fetches has it.
                            try await device.store.flush()
                            try await writer.write(ByteBuffer(string: Self.changeEvent(changes: changes, clock: device.clock)))
                            sent = (changes, now)
                            events += 1
                            (quiet, owed) = (0, max(owed - 1, 0))
                            if events == eventLimit { break }
                        } else if !lastLook {
                            quiet += 1
                            if owed > 0 || quiet >= Self.keepAliveTicks {
                                try await writer.write(ByteBuffer(string: ": still here\n\n"))
                                (quiet, owed) = (0, max(owed - 1, 0))
                            }
                        }
                        if lastLook { break }
                        try? await Task.sleep(for: Self.eventInterval)
                    }
                } onGracefulShutdown: {
                    stopping.store(true, ordering: .relaxed)
                }
                try await writer.finish(nil)
            })
    }

    /// One `change` event.
    static func changeEvent(changes: UInt64, clock: DeviceClock) -> String {
        let data = JSONValue.object([
            ("changes", .int(Int64(bitPattern: changes))), ("clock", .string(clock.mode.rawValue)),
            ("now", .string(ISO8601Timestamp.string(millisecondsSinceEpoch: clock.now.millisecondsSinceEpoch))),
        ])
        return "event: change\ndata: \(data.rendered)\n\n"
    }
}

/// How many event streams a receiver's admin API has open, and the probes that ask each to
/// learn at once whether its client is still there.
final class EventStreamCount: Sendable {
    let open = Atomic(0)
    /// Moved on when a stream is refused for want of a place: each open stream writes a
    /// comment at its next look and the look after, so one whose client left ends.
    let probes = Atomic<UInt64>(0)
}

/// One event stream counted against `AdminAPI.maximumEventStreams` for as long as its answer
/// lives (a stream that ends, a client gone, or an answer never sent all release it).
private final class EventStreamSlot: Sendable {
    let count: EventStreamCount

    init?(counting count: EventStreamCount) {
        // Refused before the slot exists, so no deinit gives back what was not taken.
        guard count.open.add(1, ordering: .relaxed).newValue <= AdminAPI.maximumEventStreams else {
            count.open.subtract(1, ordering: .relaxed)
            return nil
        }
        self.count = count
    }

    deinit {
        count.open.subtract(1, ordering: .relaxed)
    }
}
