import ArgumentParser
import Foundation
import SilentPushCore
import SilentPushSender

extension AdminExporter.Records: ExpressibleByArgument {}
extension AdminExporter.Format: ExpressibleByArgument {}

/// `pushsend export`: every push or wake a receiver recorded, streamed from its admin API as
/// NDJSON or CSV, to stdout or a file.
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Stream every push or wake a receiver recorded, as NDJSON or CSV (newest first).",
        discussion: """
            Examples:
              Every push of one device, as JSON lines:
                pushsend export pushes --device 0123…cdef > pushes.ndjson
              The wakes of one app as CSV, into a file:
                pushsend export wakes --topic com.example.app --format csv \\
                  --output wakes.csv
              The pushes a fault rule answered since 09:00, from a shared receiver:
                pushsend export pushes --admin http://staging:2199 --admin-token T \\
                  --fate injected --from 2026-11-24T09:00:00Z

            Exit 0 when everything was written, 1 when the admin API refused the request \
            (its answer is printed), 2 when it cannot be reached, does not start its answer \
            within 30 s, or the output cannot be written.
            """)

    @Argument(help: ArgumentHelp("What to export: pushes or wakes.", valueName: "records"))
    var records: AdminExporter.Records

    @OptionGroup var adminOptions: AdminOptions

    @Option(help: "ndjson (one JSON object per line) or csv (a header line first).")
    var format = AdminExporter.Format.ndjson

    // Read as a list so that a second --device (which `send` takes) is refused, not the last kept.
    @Option(name: .customLong("device"), help: ArgumentHelp("Only this device token's (given once).", valueName: "hex"))
    var devices: [String] = []

    /// The one device exported.
    var device: String? { devices.last }

    @Option(help: ArgumentHelp("Only this app's.", valueName: "bundle-id"))
    var topic: String?

    @Option(help: ArgumentHelp("Pushes only: pending, delivered, coalesced, expired, dropped, rejected or injected.", valueName: "fate"))
    var fate: String?

    @Option(help: ArgumentHelp("Only those received (pushes) or started (wakes) at or after this device time (RFC 3339).", valueName: "time"))
    var from: String?

    @Option(help: ArgumentHelp("Only those received (pushes) or started (wakes) before this device time (RFC 3339).", valueName: "time"))
    var until: String?

    @Option(name: [.short, .long], help: ArgumentHelp("Write to this file instead of stdout.", valueName: "file"))
    var output: String?

    func validate() throws {
        guard devices.count <= 1 else {
            throw ValidationError("--device is given \(devices.count) times: an export is of one device, or of all (leave it out)")
        }
        if records == .wakes, fate != nil {
            throw ValidationError("--fate is for pushes; wakes take --device, --topic, --from and --until")
        }
        // A usage error (2), as `expect --since` says it, not the admin API's refusal (1).
        for (option, value) in [("--from", from), ("--until", until)] {
            if let value, ISO8601Timestamp.millisecondsSinceEpoch(parsing: value) == nil {
                throw ValidationError("\(option) '\(value)' is not an RFC 3339 time (e.g. 2026-11-22T04:42:47Z)")
            }
        }
    }

    func run() async throws {
        let filters = [("device", device), ("topic", topic), ("fate", fate), ("from", from), ("until", until)].compactMap { name, value in
            value.map { (name: name, value: $0) }
        }
        let exporter = AdminExporter(
            admin: adminOptions.admin, records: records, format: format, filters: filters, token: adminOptions.token)
        // A refused or cut-short export leaves what was there before (`OutputFile`).
        let plan = output.map(OutputFile.plan)
        let replacing: (partial: String, target: String)? =
            if case .replace(let target)? = plan { (target + ".part", target) } else { nil }
        let handle: FileHandle
        if let output {
            do {
                handle = try OutputFile.openInPlace(replacing?.partial ?? output)
            } catch {
                throw ValidationError("cannot write --output '\(output)': \(error.reason)")
            }
        } else {
            handle = FileHandle.standardOutput
        }
        defer {
            if output != nil { try? handle.close() }
            if let replacing { try? FileManager.default.removeItem(atPath: replacing.partial) }  // gone already once renamed
        }
        let target = output.map { "'\($0)'" } ?? "stdout"
        _ = try await exporter.run { chunk in
            do {
                try handle.write(contentsOf: chunk)
            } catch {
                throw ValidationError("cannot write the export to \(target): \(OutputFile.reason(error))")
            }
        }
        if let output, let replacing {
            try? handle.synchronize()
            guard rename(replacing.partial, replacing.target) == 0 else {
                throw ValidationError("cannot write --output '\(output)': \(OutputFile.reason(errno))")
            }
        }
    }
}
