import SilentPushReceiver
import Testing

/// Which answer `Accept` asks of `GET /v1/pushes` and `/v1/wakes`: the heaviest range wins, and
/// a page (JSON, `*/*`) wins a tie with an export, as `admin-api.md` says.
@Suite struct AdminExportFormatTests {
    @Test(
        arguments: [
            ("text/csv", AdminAPI.ExportFormat.csv), ("application/x-ndjson", .ndjson), ("text/csv, application/json", nil),
            ("application/x-ndjson, */*", nil), ("text/csv;q=0.9, application/json;q=0.9", nil), ("text/csv, application/json;q=0.5", .csv),
            ("application/json;q=0.5, text/csv", .csv), ("text/csv;q=0, application/x-ndjson;q=0.1", .ndjson), ("image/png", nil),
        ] as [(String, AdminAPI.ExportFormat?)])
    func theHeaviestWinsAndAPageWinsATie(accept: String, format: AdminAPI.ExportFormat?) {
        #expect(AdminAPI.ExportFormat(accept: accept) == format, "\(accept)")
    }
}
