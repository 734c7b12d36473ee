import Foundation
import SilentPushCore

/// What the device offers the handler of one wake or task run beyond its answer: handing
/// transfers to a background `URLSession` (`URLSessionConfiguration.background`), which the
/// device performs outside the wake's time limit and which relaunch the app when done.
///
/// A Swift handler gets it as its second argument (`FetchHandlerChoice.swift { wake, context in … }`)
/// or, in a task, calls `BackgroundTask.startBackgroundTransfer(_:)`; exec and http handlers
/// hand transfers over as JSON (`transfer {…}` lines, a `"transfers"` array).
public final class FetchContext: Sendable {
    /// The context of the handler running in this task, if any.
    @TaskLocal package static var current: FetchContext?

    private let handOver: @Sendable (TransferRequest) throws(TransferRefusal) -> UInt64
    private let refuse: @Sendable (TransferRefusal, DeviceRecorder.RefusedRequest) -> Void
    /// What is left of the receiver's shutdown grace (nil while it is not stopping): a handler
    /// cut then is given no longer than that to end, so the process exits within the grace.
    package let shutdownGraceLeft: @Sendable () -> Duration?

    init(
        handOver: @escaping @Sendable (TransferRequest) throws(TransferRefusal) -> UInt64,
        refuse: @escaping @Sendable (TransferRefusal, DeviceRecorder.RefusedRequest) -> Void,
        shutdownGraceLeft: @escaping @Sendable () -> Duration? = { nil }
    ) {
        self.handOver = handOver
        self.refuse = refuse
        self.shutdownGraceLeft = shutdownGraceLeft
    }

    /// Hands `request` to the device, as `URLSession(configuration: .background(…)).downloadTask(with:).resume()`
    /// does. Returns the transfer's id (`GET /v1/transfers`). Throws `tooMany` when the app's
    /// transfers not yet done are at the cap, or `badFile` for an upload whose file it cannot
    /// read; the refusal is recorded with the wake or run.
    @discardableResult
    public func startBackgroundTransfer(_ request: TransferRequest) throws(TransferRefusal) -> UInt64 {
        try handOver(request)
    }

    /// Hands the device a transfer of `url` in `session`, as
    /// `URLSession(configuration: .background(withIdentifier: session)).downloadTask(with: url).resume()`
    /// does (with `fromFile`, a `PUT` or `POST` of that file: `uploadTask(with:fromFile:)`): a
    /// request the device refuses (a URL that is not http(s), a bad session, the app's cap, an
    /// upload's file it cannot read) is recorded with the wake or run, as the system reports
    /// an unsupported URL to the session's delegate, and thrown. `startBackgroundTransfer(_:)` takes a request already
    /// checked (`TransferRequest.init` throws before anything reaches the device).
    @discardableResult
    public func startBackgroundTransfer(
        session: String, url: String, method: TransferRequest.Method = .GET, discretionary: Bool = TransferRequest.defaultDiscretionary,
        allowsCellular: Bool = TransferRequest.defaultAllowsCellular,
        sessionSendsLaunchEvents: Bool = TransferRequest.defaultSessionSendsLaunchEvents, fromFile: String? = nil
    ) throws(TransferRefusal) -> UInt64 {
        let request: TransferRequest
        do throws(TransferRefusal) {
            request = try TransferRequest(
                session: session, url: url, method: method, discretionary: discretionary, allowsCellular: allowsCellular,
                sessionSendsLaunchEvents: sessionSendsLaunchEvents, fromFile: fromFile)
        } catch {
            refuse(
                error,
                DeviceRecorder.RefusedRequest(
                    session: session, url: url, method: method, fromFile: fromFile, discretionary: discretionary, allowsCellular: allowsCellular,
                    sessionSendsLaunchEvents: sessionSendsLaunchEvents))
            throw error
        }
        return try handOver(request)
    }

    /// Hands over a transfer a handler wrote as JSON; a request that does not read is refused
    /// and recorded with its reason. `fromOrigin`: an http handler's answer, which may not
    /// name a file of the receiver's to upload (it would send the receiver's files wherever
    /// an origin says).
    @discardableResult
    package func startBackgroundTransfer(json text: String, fromOrigin: Bool = false) -> Result<UInt64, TransferRefusal> {
        switch TransferRequest.parse(text) {
        case .success(let request) where fromOrigin && request.fromFile != nil:
            refuse(.fileFromOrigin, DeviceRecorder.RefusedRequest(request))
            return .failure(.fileFromOrigin)
        case .success(let request):
            do throws(TransferRefusal) { return .success(try handOver(request)) } catch { return .failure(error) }
        case .failure(let refusal):
            // What the record can still say of it: each string or boolean field's first value,
            // read up to where the text stops being JSON (a refused request need not be well
            // formed).
            var fields: [String: String] = [:]
            var flags: [String: Bool] = [:]
            Array(text.utf8).withUnsafeBufferPointer { buffer in
                var scanner = JSONScanner(buffer)
                try? scanner.readObject { scanner, key in
                    switch try scanner.peek() {
                    case .string where fields[key] == nil: fields[key] = try scanner.readString()
                    case .bool where flags[key] == nil: flags[key] = try scanner.readBool()
                    default: break  // the scanner skips what is not read
                    }
                }
            }
            func field(_ key: String) -> String? { fields[key] }
            let method = field("method").flatMap(TransferRequest.Method.init(rawValue:)) ?? .GET
            // URLSession's defaults (the request's) for a flag not given.
            var request = DeviceRecorder.RefusedRequest(session: field("session"), url: field("url"), method: method, fromFile: field("fromFile"))
            if let discretionary = flags["discretionary"] { request.discretionary = discretionary }
            if let allowsCellular = flags["allowsCellular"] { request.allowsCellular = allowsCellular }
            if let launchEvents = flags["sessionSendsLaunchEvents"] { request.sessionSendsLaunchEvents = launchEvents }
            refuse(refusal, request)
            return .failure(refusal)
        }
    }

    /// An http handler's answer names `transfers`, but not as an array: refused, so the app
    /// sees why nothing was handed over.
    package func refuseTransfersNotAnArray() {
        refuse(.transfersNotAnArray, DeviceRecorder.RefusedRequest(session: nil, url: nil))
    }

    /// Hands over each member of an http handler's `"transfers"` array (each as its JSON text),
    /// in order.
    package func startBackgroundTransfers(_ texts: [String]) {
        for text in texts { _ = startBackgroundTransfer(json: text, fromOrigin: true) }
    }
}
