import ArgumentParser
import Foundation
import SilentPushCore
import SilentPushSender

/// `pushsend expect`: asserts what a receiver recorded, for CI in any language.
struct Expect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Assert that a push reaches a fate, a device wakes N times, an app's Live Activities take N updates or reach a state, or its background transfers reach a state, within a span of device time.",
        discussion: """
            Examples:
              The second push is delivered within the 15 minutes iOS makes it wait:
                pushsend expect --fate delivered --within 20m \\
                  --apns-id 00000000-0000-4000-8000-000000000002
              Two pushes to one app wake it twice (the second after the interval); a JUnit
              report for CI:
                pushsend expect --device 0123…cdef --wakes 2 --within 20m \\
                  --junit expect.xml
              The app's background download is done and its relaunch kept the file:
                pushsend expect --device 0123…cdef --transfer done --file moved \\
                  --within 1h
              The app's Live Activity, started by push-to-start, took two updates and
              ended (the start and the end count as pushes applied):
                pushsend expect --device 0123…cdef --topic com.example.app \\
                  --applied 4 --activity-state ended --within 1h

            On a receiver with a manual clock, expect moves the clock itself: to each time \
            the push waits until, and at most by --within. On the system clock it polls \
            until --within has passed. One line says what it saw. Exit 0 when the \
            expectation holds, 1 when it does not, 2 on a usage error or when the admin \
            API cannot be reached.
            """)

    /// The counts `--wakes` and `--applied` take: its help, parse and check read them here.
    static let wakesRange = 0...1000
    static let appliedRange = 0...100_000

    @Option(name: .customLong("apns-id"), help: ArgumentHelp("The push (its apns-id, or apns-unique-id).", valueName: "id"))
    var apnsID: String?

    @Option(help: ArgumentHelp("The fate it should reach: \(PushFate.Kind.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "fate"))
    var fate: String?

    // Read as a list so that a second --device (which `send` takes) is refused, not the last kept.
    @Option(name: .customLong("device"), help: ArgumentHelp("The device whose wakes are counted (with --wakes).", valueName: "hex"))
    var devices: [String] = []

    /// The one device checked.
    var device: String? { devices.last }

    @Option(
        help: ArgumentHelp(
            "Only this topic's wakes (with --wakes); a ….push-type.widgets or ….push-type.controls topic counts its reloads. Without it, the app launches (fetch wakes) are counted.",
            valueName: "topic"))
    var topic: String?

    @Option(
        parsing: .unconditional, help: ArgumentHelp("How many times the device should have woken, exactly.", valueName: "n"),
        transform: { try PushSendOptions.wholeNumber($0, expected: WholeNumberProblem.describe(Self.wakesRange)) })
    var wakes: Int?

    @Option(help: ArgumentHelp("Count only wakes started at or after this device time (RFC 3339; with --wakes).", valueName: "time"))
    var since: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "How many Live Activity pushes the app's activities on the device should have applied, exactly (a push-to-start and an end push count).",
            valueName: "n"),
        transform: { try PushSendOptions.wholeNumber($0, expected: WholeNumberProblem.describe(Self.appliedRange)) })
    var applied: Int?

    @Option(
        name: .customLong("activity-state"),
        help: ArgumentHelp("The state the app's newest Live Activity should be in: active, stale, ended or dismissed.", valueName: "state"))
    var activityState: String?

    @Option(
        help: ArgumentHelp(
            "The state every background transfer of the device (of --topic, of --session) should be in: \(TransferRecord.State.allCases.map(\.rawValue).joined(separator: ", ")).",
            valueName: "state"))
    var transfer: String?

    @Option(help: ArgumentHelp("Only this background session's transfers (with --transfer).", valueName: "id"))
    var session: String?

    @Option(help: ArgumentHelp("What the relaunch did with each transfer's file (with --transfer done): moved or deleted.", valueName: "fate"))
    var file: String?

    // Unconditional: `--within -5s` is refused as a duration, not read as an unknown option.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("The span of device time it may take (e.g. 30s, 20m, 2h; default 0: as it is now).", valueName: "duration"))
    var within = "0s"

    @OptionGroup var adminOptions: AdminOptions

    @Option(help: ArgumentHelp("Also write a JUnit XML report here.", valueName: "file"))
    var junit: String?

    func expectation() throws -> PushExpectation {
        guard devices.count <= 1 else {
            throw ValidationError("--device is given \(devices.count) times: a check is of one device (run expect once for each)")
        }
        guard let span = Duration(parsing: within), span <= .seconds(10 * 365 * 86400) else {
            throw ValidationError("--within '\(within)' is not a duration of at most ten years (e.g. 30s, 20m, 2h)")
        }
        if let topic, !APNsRequestValidator.isTopicShape(topic) {
            throw ValidationError("--topic '\(topic)' is not an app's topic (its bundle ID, e.g. com.example.app)")
        }
        let target: PushExpectation.Target
        if let transfer {
            guard apnsID == nil, fate == nil, wakes == nil, since == nil, applied == nil, activityState == nil else {
                throw ValidationError(
                    "--transfer is an expectation of its own: give it without --apns-id, --fate, --wakes, --applied or --activity-state")
            }
            guard let device else {
                throw ValidationError("give --device TOKEN with --transfer STATE (and --topic, --session, --file to narrow it)")
            }
            guard APNsRequestValidator.isValidDeviceToken(device) else { throw ValidationError("--device '\(device)' is not a device token (hex)") }
            guard let state = TransferRecord.State(rawValue: transfer) else {
                throw ValidationError(
                    "--transfer '\(transfer)' is not one of \(TransferRecord.State.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let fileFate = try file.map { text in
                guard let fate = TransferRecord.FileFate(rawValue: text) else { throw ValidationError("--file '\(text)' is not moved or deleted") }
                return fate
            }
            // Only a done transfer's file is handed to a relaunch: any other state never has one.
            if file != nil, state != .done {
                throw ValidationError("--file goes with --transfer done: a \(state.rawValue) transfer has no file handed to the app")
            }
            if let session, session.isEmpty || session.utf8.count > TransferRequest.maximumSessionLength {
                throw ValidationError("--session must be 1 to \(TransferRequest.maximumSessionLength) bytes")
            }
            return PushExpectation(
                admin: adminOptions.admin, token: adminOptions.token,
                target: .transfers(device: device.lowercased(), topic: topic, session: session, state: state, file: fileFate), within: span)
        }
        guard session == nil, file == nil else { throw ValidationError("--session and --file go with --transfer") }
        if applied != nil || activityState != nil {
            guard apnsID == nil, fate == nil, wakes == nil, since == nil else {
                throw ValidationError(
                    "--applied and --activity-state are an expectation of their own: give them without --apns-id, --fate, --wakes or --since")
            }
            guard let device, let topic else {
                throw ValidationError("give --device TOKEN --topic BUNDLE-ID with --applied N and/or --activity-state STATE")
            }
            guard APNsRequestValidator.isValidDeviceToken(device) else { throw ValidationError("--device '\(device)' is not a device token (hex)") }
            if let applied, !Self.appliedRange.contains(applied) {
                throw ValidationError("--applied must be from \(WholeNumberProblem.describe(Self.appliedRange))")
            }
            if let activityState, !PushExpectation.activityStates.contains(activityState) {
                throw ValidationError("--activity-state '\(activityState)' is not one of \(PushExpectation.activityStates.joined(separator: ", "))")
            }
            // The topic a Live Activity push goes to names the app by its bundle id.
            return PushExpectation(
                admin: adminOptions.admin, token: adminOptions.token,
                target: .activities(
                    device: device.lowercased(), topic: LiveActivityApp.bundleID(ofTopic: topic), applied: applied, state: activityState),
                within: span)
        }
        switch (apnsID, fate, device, wakes) {
        case (let apnsID?, let fate?, nil, nil):
            guard let kind = PushFate.Kind(rawValue: fate) else {
                throw ValidationError("--fate '\(fate)' is not one of \(PushFate.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            guard APNsHeaders.isCanonicalUUID(apnsID) else { throw ValidationError("--apns-id '\(apnsID)' is not a UUID") }
            guard topic == nil, since == nil else { throw ValidationError("--topic and --since go with --device and --wakes") }
            target = .fate(apnsID: apnsID, fate: kind)
        case (nil, nil, let device?, let wakes?):
            guard APNsRequestValidator.isValidDeviceToken(device) else { throw ValidationError("--device '\(device)' is not a device token (hex)") }
            guard Self.wakesRange.contains(wakes) else {
                throw ValidationError("--wakes must be from \(WholeNumberProblem.describe(Self.wakesRange))")
            }
            var from: Int64?
            if let since {
                guard let time = ISO8601Timestamp.millisecondsSinceEpoch(parsing: since) else {
                    throw ValidationError("--since '\(since)' is not an RFC 3339 time (e.g. 2026-11-22T04:42:47Z)")
                }
                from = time
            }
            target = .wakes(device: device, topic: topic, count: wakes, since: from)
        default:
            throw ValidationError(
                "give --apns-id ID --fate FATE; or --device TOKEN with --wakes N, --applied N, --activity-state STATE or --transfer STATE")
        }
        return PushExpectation(admin: adminOptions.admin, token: adminOptions.token, target: target, within: span)
    }

    func validate() throws {
        _ = try expectation()
        // Before the check runs (and moves a manual clock), not after.
        if let junit {
            var isDirectory: ObjCBool = false
            let existing = FileManager.default.fileExists(atPath: junit, isDirectory: &isDirectory)
            guard !junit.isEmpty, !isDirectory.boolValue else {
                throw ValidationError("--junit '\(junit)' is not a file's path (give one like expect.xml)")
            }
            let directory = URL(fileURLWithPath: junit).deletingLastPathComponent().path
            guard existing ? FileManager.default.isWritableFile(atPath: junit) : FileManager.default.isWritableFile(atPath: directory) else {
                throw ValidationError("cannot write --junit '\(junit)' (no such directory, or not writable)")
            }
        }
    }

    func run() async throws {
        let expectation = try expectation()
        let stamp = ISO8601Timestamp.string(millisecondsSinceEpoch: Int64(Date().timeIntervalSince1970 * 1000))
        let outcome: PushExpectation.Outcome
        do {
            outcome = try await expectation.run()
        } catch let failure as AdminExporter.Failure {
            // The report says the check was not made, so one an earlier run left is not read as this one's.
            if let junit {
                _ = OutputFile.write(
                    Data(PushExpectation.junit(name: expectation.name, error: failure.description, timestamp: stamp).utf8), to: junit)
            }
            guard case .refused(let status, let detail) = failure else { throw failure }
            // A refusal is not a result about the device: the admin URL or token is wrong (2).
            let hint = status == 401 ? " (check --admin-token)" : status == 404 ? " (check --admin)" : ""
            try? FileHandle.standardError.write(
                contentsOf: Data("pushsend: the admin API answered \(status): \(TerminalLine.escaped(detail))\(hint)\n".utf8))
            throw ExitCode(2)
        }
        print(outcome.line)
        if let junit, let reason = OutputFile.write(Data(PushExpectation.junit(outcome, timestamp: stamp).utf8), to: junit) {
            throw ValidationError("cannot write --junit '\(junit)': \(reason)")
        }
        if !outcome.met { throw ExitCode(1) }
    }
}
