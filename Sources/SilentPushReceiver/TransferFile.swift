import Foundation
import SilentPushCore

/// A file a relaunch for a background session hands the app: one per transfer of the session
/// (`urlSession(_:downloadTask:didFinishDownloadingTo:)`, or `didCompleteWithError`).
/// Move the file away before the handler completes to keep it: one left in place is deleted
/// when the relaunch ends.
public struct TransferFile: Sendable, Equatable {
    /// The transfer's id (`GET /v1/transfers`).
    public var transferID: UInt64
    /// The URL the app asked for.
    public var url: String
    /// Where the answer is; nil for a transfer that did not complete, or whose file is gone
    /// from the receiver (`error` says so).
    public var path: String?
    /// Bytes of the origin's answer kept (all of them for a completed transfer).
    public var bytes: Int64
    /// The origin's HTTP status for a completed transfer.
    public var status: Int?
    /// Why a transfer did not complete, or why a completed one has no file.
    public var error: String?

    /// A file, field by field.
    public init(transferID: UInt64, url: String, path: String?, bytes: Int64, status: Int?, error: String?) {
        self.transferID = transferID
        self.url = url
        self.path = path
        self.bytes = bytes
        self.status = status
        self.error = error
    }

    /// As JSON: what an exec command reads on stdin and an http handler is POSTed.
    var json: JSONValue {
        .object([
            ("transferId", .int(Int64(bitPattern: transferID))), ("url", .string(url)), ("path", .string(path)), ("bytes", .int(bytes)),
            ("status", .int(status.map(Int64.init))), ("error", .string(error)),
        ])
    }
}
