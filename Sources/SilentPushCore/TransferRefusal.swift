/// Why a transfer was refused: the wake's record says it in these words.
public enum TransferRefusal: String, Error, Sendable, CaseIterable {
    /// The request is not a JSON object.
    case notAnObject = "a transfer is a JSON object"
    /// The request names a field twice.
    case repeatedField = "a transfer names each field at most once"
    /// The request names a field that is not read: one of URLSession's not modelled, or a misspelling.
    case unknownField =
        "a transfer's fields are session, url, method, fromFile, discretionary, allowsCellular and sessionSendsLaunchEvents (URLSession's others are not modelled)"
    /// The request has no `session`.
    case missingSession = "a transfer needs a session"
    /// `session` is empty, longer than allowed, or holds control characters.
    case badSession = "session must be 1 to 200 bytes (UTF-8) of printable characters"
    /// The request has no `url`.
    case missingURL = "a transfer needs a url"
    /// `url` is not an `http` or `https` URL within the length allowed.
    case notHTTP = "url must be an http or https URL (at most 2048 bytes, spaces and control characters percent-encoded)"
    /// `method` is not `GET`, `PUT` or `POST`.
    case unknownMethod = "method must be GET, PUT or POST"
    /// A flag is not `true` or `false`.
    case badFlag = "discretionary, allowsCellular and sessionSendsLaunchEvents must be true or false"
    /// The app's transfers not yet done are at the cap (`--transfer-limit`).
    case tooMany = "too many transfers for the app: its transfers not yet done are at the cap (--transfer-limit, 100 by default)"
    /// `sessionSendsLaunchEvents` differs from the session's other transfers: the value is the session's.
    case launchEventsDiffer =
        "sessionSendsLaunchEvents is the session's: give the value its other transfers have (GET /v1/transfers?session= shows it)"
    /// The handler has ended: transfers are handed over only while it runs.
    case notRunning = "the handler has ended: hand transfers over while it runs"
    /// `fromFile` with `GET`: an upload is a `PUT` or `POST`.
    case uploadWithGET = "fromFile goes with PUT or POST: a GET downloads"
    /// `fromFile` is not an absolute path to a file the receiver can read.
    case badFile = "fromFile must be an absolute path to a file the receiver can read (at most 1024 bytes)"
    /// An http handler's `transfers` is not a JSON array.
    case transfersNotAnArray = "an http handler's transfers must be a JSON array of transfer objects"
    /// An http handler's transfer names `fromFile`: an origin may not choose the receiver's files to send.
    case fileFromOrigin = "an http handler's transfers cannot name fromFile: the receiver would send its own files where an origin says"
}
